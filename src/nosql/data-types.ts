// The data types a stage declares (~indexedTypes): Preview reads the working configuration, Live the published one.
import type { IndexedType } from '../types/config.js';
import { dataErrors } from './data-errors.js';
import type { Db, Stage } from './scope.js';
import { loadStageEntities } from './stage-config.js';

export type DataType = IndexedType;

/** The declared types; none in Live before the first publish (Live then runs no configuration). */
export async function loadDataTypes(db: Db, game: string, stage: Stage): Promise<DataType[]> {
  const staged = await loadStageEntities(db, { game, stage });
  return staged?.config['~indexedTypes'] ?? [];
}

/** The declared type of that short code, or 404 DATA_TYPE_NOT_FOUND. */
export async function requireDataType(
  db: Db,
  game: string,
  stage: Stage,
  shortCode: string,
): Promise<DataType> {
  const type = (await loadDataTypes(db, game, stage)).find((t) => t.shortCode === shortCode);
  if (!type) throw dataErrors.typeNotFound(shortCode.slice(0, 100));
  return type;
}
