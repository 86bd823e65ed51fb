// The attribute values of one LogEventRequest, checked against the event's configuration, defaults filled in.

import type { EventAttribute } from '../config/config-types.js';
import { valueFits } from '../config/config-validate.js';

/** Request-level errors by field, in the platform's form: {"SCORE": "REQUIRED"}. */
export type FieldErrors = Record<string, string>;

export type AttributeValues = Map<string, unknown>;

/** PostgreSQL JSONB refuses NUL and unpaired surrogates anywhere in a value. */
function storable(v: unknown): boolean {
  if (typeof v === 'string')
    return (
      !v.includes('\u0000') &&
      !/[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/.test(v)
    );
  if (Array.isArray(v)) return v.every(storable);
  if (v !== null && typeof v === 'object') {
    return Object.entries(v).every(([k, item]) => storable(k) && !k.startsWith('$') && storable(item));
  }
  return true;
}

/**
 * Each attribute of the event: the request's value when it fits the data type, else its default; REQUIRED when
 * neither exists (an explicit null counts as absent), INVALID when the value does not fit.
 */
export function readEventAttributes(
  attributes: EventAttribute[],
  body: Record<string, unknown>,
): { values: AttributeValues } | { errors: FieldErrors } {
  const values: AttributeValues = new Map();
  const errors: FieldErrors = {};
  for (const a of attributes) {
    const given = Object.hasOwn(body, a.shortCode) ? body[a.shortCode] : undefined;
    if (given === undefined || given === null) {
      if (a.defaultValue === null || a.defaultValue === undefined) errors[a.shortCode] = 'REQUIRED';
      else values.set(a.shortCode, a.defaultValue);
    } else if (!valueFits(a.dataType, given) || !storable(given)) {
      errors[a.shortCode] = 'INVALID';
    } else {
      values.set(a.shortCode, given);
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { values };
}
