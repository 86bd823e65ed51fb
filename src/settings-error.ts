// The error of a bad setting, naming its variable (src/settings.ts and the modules it reads settings with).

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid setting ${variable}: ${message}`);
    this.name = 'SettingsError';
  }
}
