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

/** The route's permission: level 1 reads, level 2 writes. */
export function need(key: string, level: Level) {
  return { auth: { permission: [key, level] as [string, Level] } };
}

export const Message = Type.Object({ message: Type.String() }, { examples: [{ message: 'SUCCESS' }] });
export const SUCCESS = { message: 'SUCCESS' };
