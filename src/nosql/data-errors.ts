// Errors of the key-value data service and of the two export calls; they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const dataErrors = {
  typeNotFound: def(
    'DATA_TYPE_NOT_FOUND',
    404,
    "The data type is not declared in this stage's configuration (~indexedTypes; Live runs the published snapshot).",
    (type: string) => `Data type ${type} is not declared`,
  ),
  itemNotFound: def(
    'DATA_ITEM_NOT_FOUND',
    404,
    'No item with this id exists in the data type, or its TTL has passed.',
    (type: string, id: string) => `Item ${id} of data type ${type} not found`,
  ),
  versionConflict: def(
    'DATA_VERSION_CONFLICT',
    409,
    'versionCheck did not match the stored version (a missing or expired item is version 0); nothing was written.',
    (type: string, id: string, expected: number) =>
      `Item ${id} of data type ${type} is not at version ${expected}`,
  ),
  badItemId: def(
    'DATA_BAD_ITEM_ID',
    400,
    'An item id is 1 to 100 characters without control characters (longer path parameters answer 414).',
    () => 'An item id is 1 to 100 characters without control characters',
  ),
  badBody: def(
    'DATA_BAD_BODY',
    400,
    'The request body does not have the shape this data-service call takes; the message says what is expected.',
    (why: string) => `Bad request body: ${why}`,
  ),
  fieldNotIndexed: def(
    'DATA_FIELD_NOT_INDEXED',
    400,
    'A query or sort names a field that is not declared indexed for the data type (~indexedTypes fields).',
    (type: string, field: string) => `Field ${field} is not an indexed field of data type ${type}`,
  ),
  badQuery: def(
    'DATA_BAD_QUERY',
    400,
    'The query tree is malformed: unknown condition or operator, a value of the wrong type, or too large.',
    (why: string) => `Bad data query: ${why}`,
  ),
  fieldTypeMismatch: def(
    'DATA_FIELD_TYPE_MISMATCH',
    400,
    'An indexed field of the item holds a value of another type than the one declared (string or finite number).',
    (field: string, type: string) => `Indexed field ${field} must hold a ${type}`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const dataCatalogue = entriesOf(dataErrors);
