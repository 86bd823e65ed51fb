// Shared pieces of the configuration routes: base path, path parameters, permission requirements, answers.
import { type TSchema, Type } from 'typebox';
import type { Level } from '../auth/permissions.js';

export const CONFIG_BASE = '/restv2/game/:apiKey/config';
export const TAGS = ['configuration'];

const ApiKey = Type.String({ minLength: 1, maxLength: 128 });
export const ApiKeyParams = Type.Object({ apiKey: ApiKey });

/** Path parameters: the game plus the entity's own. */
export function paramsWith<P extends Record<string, TSchema>>(extra: P) {
  return Type.Object({ apiKey: ApiKey, ...extra });
}

/**
 * A configuration route's declaration: its permission (level 1 reads, level 2 writes); its writes are audited
 * under config (by the service, config-audit.ts) and hold a concurrent configuration-write slot (rateClass config).
 */
export function need(key: string, level: Level) {
  return {
    auth: { permission: [key, level] as [string, Level] },
    audit: 'config' as const,
    // Each write's service records its entry in the write's transaction (config-audit.ts).
    auditInline: true,
    rateClass: 'config' as const,
  };
}

export const Message = Type.Object({ message: Type.String() }, { examples: [{ message: 'SUCCESS' }] });
export const SUCCESS = { message: 'SUCCESS' };
