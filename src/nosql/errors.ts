// Errors of the runtime data server (collections, documents, indexes); they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const nosqlErrors = {
  gameOnOtherCluster: def(
    'GAME_ON_OTHER_CLUSTER',
    404,
    "The game lives on another runtime cluster than this nosql server's: the message names it; endpoint discovery (GET /restv2/game/{apiKey}/endpoints) answers its URLs.",
    (apiKey: string, cluster: string) => `Game ${apiKey} is on cluster ${cluster}, not this one`,
  ),
  collectionNotFound: def(
    'NOSQL_COLLECTION_NOT_FOUND',
    404,
    'The collection does not exist in this stage: it is not a system collection, not made by the configuration, and no meta or runtime collection of that name was created.',
    (name: string) => `Collection ${name} not found`,
  ),
  badCollectionName: def(
    'NOSQL_BAD_COLLECTION_NAME',
    400,
    'A collection name is 1 to 120 letters, digits, "_", "-" and "." and starts with a letter, digit or "_".',
    (name: string) => `Invalid collection name "${name}"`,
  ),
  actionNotAllowed: def(
    'NOSQL_ACTION_NOT_ALLOWED',
    403,
    "The collection's group does not allow this action (see the actions of GET /mongo/collections); the message names it.",
    (action: string, name: string) => `${action} is not allowed on collection ${name}`,
  ),
  metaReadOnlyInLive: def(
    'NOSQL_META_READ_ONLY_IN_LIVE',
    403,
    'Meta collections are written only in the Preview stage; in Live they are read-only (they travel with snapshots).',
    (action: string, name: string) => `${action} is not allowed on meta collection ${name} in the Live stage`,
  ),
  badBody: def(
    'NOSQL_BAD_BODY',
    400,
    'The request body does not have the shape this operation takes; the message says what is expected.',
    (why: string) => `Bad request body: ${why}`,
  ),
  tooDeep: def(
    'NOSQL_NESTING_TOO_DEEP',
    400,
    'A document or query nests objects and arrays more than 100 levels deep (MongoDB has the same limit).',
    (max: number) => `Documents and queries may nest at most ${max} levels deep`,
  ),
  documentTooLarge: def(
    'NOSQL_DOCUMENT_TOO_LARGE',
    400,
    'A document would be larger than 16 MB once stored (MongoDB has the same limit).',
    (bytes: number) => `A document would be ${bytes} bytes; the most is 16 MB`,
  ),
  responseTooLarge: def(
    'NOSQL_RESPONSE_TOO_LARGE',
    400,
    'A find or aggregate answer would be larger than 4 MB (prior art has the same cap); nothing is sent. Ask for fewer documents (limit, skip, a narrower query) or fewer fields.',
    (limit: number) =>
      `The answer would be larger than ${limit} bytes (4 MB); ask for fewer documents or fewer fields`,
  ),
  badId: def(
    'NOSQL_BAD_ID',
    400,
    'An _id must not be an array; omit it to have an ObjectId generated.',
    (why: string) => `Bad _id: ${why}`,
  ),
  duplicateKey: def(
    'NOSQL_DUPLICATE_KEY',
    409,
    'The write would give two documents the same _id, or the same key of a unique index; nothing was written.',
    (index: string) => `Duplicate key for index ${index}`,
  ),
  uniqueArray: def(
    'NOSQL_UNIQUE_INDEX_ARRAY',
    400,
    'A field covered by a unique index holds an array, which a unique index cannot cover here.',
    (detail: string) => `A unique index cannot cover an array: ${detail}`,
  ),
  indexKeyTooLarge: def(
    'NOSQL_INDEX_KEY_TOO_LARGE',
    400,
    'A value of an indexed field is too large to index (about 2.7 KB); nothing was written.',
    () => 'A value of an indexed field is too large to be indexed (at most about 2,700 bytes)',
  ),
  indexNotFound: def(
    'NOSQL_INDEX_NOT_FOUND',
    404,
    'No index of that name exists on the collection.',
    (name: string, collection: string) => `Index ${name} not found on collection ${collection}`,
  ),
  indexConflict: def(
    'NOSQL_INDEX_CONFLICT',
    409,
    'An index of that name exists with other keys or options, or an index with the same keys exists under another name.',
    (why: string) => `Index conflict: ${why}`,
  ),
  badIndexName: def(
    'NOSQL_BAD_INDEX_NAME',
    400,
    'An index name is 1 to 120 letters, digits, "_", "-" and "."; "_id_" is the primary index and cannot be made or dropped.',
    (name: string) => `Invalid index name "${name}"`,
  ),
  tooManyIndexes: def(
    'NOSQL_TOO_MANY_INDEXES',
    400,
    'A collection has at most 64 indexes, the _id index included.',
    (max: number) => `A collection has at most ${max} indexes`,
  ),
  multiReplacement: def(
    'NOSQL_MULTI_REPLACEMENT',
    400,
    'A replacement document cannot be applied with multi: true (MongoDB refuses it too); use update operators.',
    () => 'multi: true needs update operators, not a replacement document',
  ),
  queryRejected: def(
    'NOSQL_QUERY_REJECTED',
    400,
    'The database refused a value of the query or document as invalid; the message gives its reason.',
    (why: string) => `The database refused the request: ${why}`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const nosqlCatalogue = entriesOf(nosqlErrors);
