// Routes of events and their attributes: /restv2/game/{apiKey}/config/~events/** (configurator.events).
import type { Context } from '../context.js';
import type { App } from '../route/app.js';
import { listOf } from '../route/openapi.js';
import { configAudit } from './config-audit.js';
import { AttributeInput, AttributeOut, EventInput, EventOut, partialOf, ShortCode } from './config-types.js';
import {
  createAttribute,
  createEvent,
  deleteAttribute,
  deleteEvent,
  getAttribute,
  getEvent,
  listAttributes,
  listEvents,
  updateAttribute,
  updateEvent,
} from './events.js';
import { ApiKeyParams, CONFIG_BASE, Message, need, paramsWith, SUCCESS, TAGS as tags } from './route-kit.js';

const EventParams = paramsWith({ eventShortCode: ShortCode });
const AttributeParams = paramsWith({ eventShortCode: ShortCode, attributeShortCode: ShortCode });
const read = need('configurator.events', 1);
const write = need('configurator.events', 2);
const EVENTS = `${CONFIG_BASE}/~events`;
const EVENT = `${EVENTS}/:eventShortCode`;
const ATTRIBUTES = `${EVENT}/~attributes`;
const ATTRIBUTE = `${ATTRIBUTES}/:attributeShortCode`;
/** The update methods and the verb of their operationIds (updateEvent, patchEvent...). */
export const UPDATES = [
  ['PUT', 'update'],
  ['PATCH', 'patch'],
] as const;

export function registerEventRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    EVENTS,
    {
      config: read,
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events',
        params: ApiKeyParams,
        response: { 200: listOf(EventOut) },
      },
    },
    async (request) => listEvents(pool, request.params.apiKey),
  );
  app.post(
    EVENTS,
    {
      config: write,
      schema: {
        tags,
        operationId: 'createEvent',
        summary: 'Create an event (with or without ~attributes)',
        params: ApiKeyParams,
        body: EventInput,
        response: { 201: EventOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await createEvent(pool, request.params.apiKey, request.body, configAudit(request, ctx.clock, 201)),
        ),
  );
  app.get(
    EVENT,
    {
      config: read,
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Read an event',
        params: EventParams,
        response: { 200: EventOut },
      },
    },
    async (request) => getEvent(pool, request.params.apiKey, request.params.eventShortCode),
  );
  // PUT and PATCH do the same; two declarations, so that each has its own operationId.
  for (const [method, operationId] of UPDATES) {
    app.route({
      method,
      url: EVENT,
      config: write,
      schema: {
        tags,
        operationId: `${operationId}Event`,
        summary: 'Update an event: only the fields sent change (~attributes sent replaces the list)',
        params: EventParams,
        body: partialOf(EventInput),
        response: { 200: EventOut },
      },
      handler: async (request) =>
        updateEvent(
          pool,
          request.params.apiKey,
          request.params.eventShortCode,
          request.body,
          configAudit(request, ctx.clock),
        ),
    });
  }
  app.delete(
    EVENT,
    {
      config: write,
      schema: {
        tags,
        operationId: 'deleteEvent',
        summary: 'Delete an event',
        params: EventParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      await deleteEvent(
        pool,
        request.params.apiKey,
        request.params.eventShortCode,
        configAudit(request, ctx.clock),
      );
      return SUCCESS;
    },
  );
  registerAttributeRoutes(app, ctx);
}

function registerAttributeRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    ATTRIBUTES,
    {
      config: read,
      schema: {
        tags,
        operationId: 'listAttributes',
        summary: "List an event's attributes",
        params: EventParams,
        response: { 200: listOf(AttributeOut) },
      },
    },
    async (request) => listAttributes(pool, request.params.apiKey, request.params.eventShortCode),
  );
  app.post(
    ATTRIBUTES,
    {
      config: write,
      schema: {
        tags,
        operationId: 'createAttribute',
        summary: 'Add an attribute to an event',
        params: EventParams,
        body: AttributeInput,
        response: { 201: AttributeOut },
      },
    },
    async (request, reply) => {
      const { apiKey, eventShortCode } = request.params;
      return reply
        .code(201)
        .send(
          await createAttribute(
            pool,
            apiKey,
            eventShortCode,
            request.body,
            configAudit(request, ctx.clock, 201),
          ),
        );
    },
  );
  app.get(
    ATTRIBUTE,
    {
      config: read,
      schema: {
        tags,
        operationId: 'getAttribute',
        summary: 'Read an attribute',
        params: AttributeParams,
        response: { 200: AttributeOut },
      },
    },
    async (request) => {
      const { apiKey, eventShortCode, attributeShortCode } = request.params;
      return getAttribute(pool, apiKey, eventShortCode, attributeShortCode);
    },
  );
  for (const [method, operationId] of UPDATES) {
    app.route({
      method,
      url: ATTRIBUTE,
      config: write,
      schema: {
        tags,
        operationId: `${operationId}Attribute`,
        summary: 'Update an attribute: only the fields sent change',
        params: AttributeParams,
        body: partialOf(AttributeInput),
        response: { 200: AttributeOut },
      },
      handler: async (request) => {
        const { apiKey, eventShortCode, attributeShortCode } = request.params;
        return updateAttribute(
          pool,
          apiKey,
          eventShortCode,
          attributeShortCode,
          request.body,
          configAudit(request, ctx.clock),
        );
      },
    });
  }
  app.delete(
    ATTRIBUTE,
    {
      config: write,
      schema: {
        tags,
        operationId: 'deleteAttribute',
        summary: 'Delete an attribute',
        params: AttributeParams,
        response: { 200: Message },
      },
    },
    async (request) => {
      const { apiKey, eventShortCode, attributeShortCode } = request.params;
      await deleteAttribute(
        pool,
        apiKey,
        eventShortCode,
        attributeShortCode,
        configAudit(request, ctx.clock),
      );
      return SUCCESS;
    },
  );
}
