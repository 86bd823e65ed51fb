// Events and their attributes: create, read, update (only the fields sent), delete, with references kept whole.
import type pg from 'pg';
import { type AttributeBody, buildAttribute, buildEvent, type EventBody, ids } from './config-build.js';
import { changeConfig, loadConfigDoc } from './config-store.js';
import type { ConfigDoc, EventAttribute, GameEvent } from './config-types.js';
import {
  type Issue,
  idIssues,
  referrersOf,
  throwIfIssues,
  validateAttribute,
  validateEvent,
} from './config-validate.js';
import { configErrors } from './errors.js';
import type { AuditWrap, Db } from './game-lock.js';

export type EventPatch = Partial<EventBody>;
export type AttributePatch = Partial<AttributeBody>;

function findEvent(doc: ConfigDoc, shortCode: string): GameEvent {
  const event = doc['~events'].find((e) => e.shortCode === shortCode);
  if (!event) throw configErrors.eventNotFound(shortCode);
  return event;
}

function findAttribute(event: GameEvent, shortCode: string): EventAttribute {
  const attribute = event['~attributes'].find((a) => a.shortCode === shortCode);
  if (!attribute) throw configErrors.attributeNotFound(event.shortCode, shortCode);
  return attribute;
}

/** A short code names the entity in paths and references: an update may repeat it but not change it. */
export function shortCodeIssues(sent: string | undefined, current: string): Issue[] {
  return sent === undefined || sent === current
    ? []
    : [{ field: 'shortCode', message: `cannot be changed from ${current}; create a new entity instead` }];
}

function attributeIdIssues(event: string, attributes: AttributeBody[] | undefined): Issue[] {
  return (attributes ?? []).flatMap((a, i) =>
    idIssues(a['@id'], ids.attribute(event, a.shortCode), `~attributes.${i}.@id`),
  );
}

/** 409 when other entities point at any of `removed`. */
function assertUnreferenced(doc: ConfigDoc, removed: string[]): void {
  for (const id of removed) {
    const by = referrersOf(doc, id);
    if (by.length > 0) throw configErrors.inUse(id, by);
  }
}

export async function listEvents(db: Db, apiKey: string): Promise<GameEvent[]> {
  return (await loadConfigDoc(db, apiKey))['~events'];
}

export async function getEvent(db: Db, apiKey: string, shortCode: string): Promise<GameEvent> {
  return findEvent(await loadConfigDoc(db, apiKey), shortCode);
}

export async function createEvent(
  pool: pg.Pool,
  apiKey: string,
  body: EventBody,
  audit?: AuditWrap,
): Promise<GameEvent> {
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const event = buildEvent(body);
      throwIfIssues([
        ...idIssues(body['@id'], event['@id'], '@id'),
        ...attributeIdIssues(body.shortCode, body['~attributes']),
        ...validateEvent(event, ''),
      ]);
      if (doc['~events'].some((e) => e.shortCode === event.shortCode))
        throw configErrors.duplicate(event['@id']);
      doc['~events'].push(event);
      return event;
    },
    audit,
  );
}

/** Changes only the fields sent; `~attributes`, when sent, becomes the event's whole attribute list. */
export async function updateEvent(
  pool: pg.Pool,
  apiKey: string,
  shortCode: string,
  patch: EventPatch,
  audit?: AuditWrap,
): Promise<GameEvent> {
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const current = findEvent(doc, shortCode);
      const next = buildEvent({ ...current, ...patch, shortCode });
      throwIfIssues([
        ...shortCodeIssues(patch.shortCode, shortCode),
        ...idIssues(patch['@id'], current['@id'], '@id'),
        ...attributeIdIssues(shortCode, patch['~attributes']),
        ...validateEvent(next, ''),
      ]);
      const kept = new Set(next['~attributes'].map((a) => a['@id']));
      assertUnreferenced(
        doc,
        current['~attributes'].map((a) => a['@id']).filter((id) => !kept.has(id)),
      );
      doc['~events'][doc['~events'].indexOf(current)] = next;
      return next;
    },
    audit,
  );
}

export async function deleteEvent(
  pool: pg.Pool,
  apiKey: string,
  shortCode: string,
  audit?: AuditWrap,
): Promise<void> {
  await changeConfig(
    pool,
    apiKey,
    (doc) => {
      const event = findEvent(doc, shortCode);
      assertUnreferenced(doc, [event['@id']]);
      doc['~events'].splice(doc['~events'].indexOf(event), 1);
    },
    audit,
  );
}

export async function listAttributes(db: Db, apiKey: string, event: string): Promise<EventAttribute[]> {
  return findEvent(await loadConfigDoc(db, apiKey), event)['~attributes'];
}

export async function getAttribute(
  db: Db,
  apiKey: string,
  event: string,
  shortCode: string,
): Promise<EventAttribute> {
  return findAttribute(findEvent(await loadConfigDoc(db, apiKey), event), shortCode);
}

export async function createAttribute(
  pool: pg.Pool,
  apiKey: string,
  event: string,
  body: AttributeBody,
  audit?: AuditWrap,
): Promise<EventAttribute> {
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const owner = findEvent(doc, event);
      const attribute = buildAttribute(event, body);
      throwIfIssues([...idIssues(body['@id'], attribute['@id'], '@id'), ...validateAttribute(attribute, '')]);
      if (owner['~attributes'].some((a) => a.shortCode === attribute.shortCode)) {
        throw configErrors.duplicate(attribute['@id']);
      }
      owner['~attributes'].push(attribute);
      return attribute;
    },
    audit,
  );
}

export async function updateAttribute(
  pool: pg.Pool,
  apiKey: string,
  event: string,
  shortCode: string,
  patch: AttributePatch,
  audit?: AuditWrap,
): Promise<EventAttribute> {
  return changeConfig(
    pool,
    apiKey,
    (doc) => {
      const owner = findEvent(doc, event);
      const current = findAttribute(owner, shortCode);
      const next = buildAttribute(event, { ...current, ...patch, shortCode });
      throwIfIssues([
        ...shortCodeIssues(patch.shortCode, shortCode),
        ...idIssues(patch['@id'], current['@id'], '@id'),
        ...validateAttribute(next, ''),
      ]);
      owner['~attributes'][owner['~attributes'].indexOf(current)] = next;
      return next;
    },
    audit,
  );
}

export async function deleteAttribute(
  pool: pg.Pool,
  apiKey: string,
  event: string,
  shortCode: string,
  audit?: AuditWrap,
): Promise<void> {
  await changeConfig(
    pool,
    apiKey,
    (doc) => {
      const owner = findEvent(doc, event);
      const attribute = findAttribute(owner, shortCode);
      assertUnreferenced(doc, [attribute['@id']]);
      owner['~attributes'].splice(owner['~attributes'].indexOf(attribute), 1);
    },
    audit,
  );
}
