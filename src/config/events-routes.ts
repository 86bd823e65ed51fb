// Routes of events and their attributes: /restv2/game/{apiKey}/config/~events/** (configurator.events).
import { Type } from 'typebox';
import type { Context } from '../context.js';
import type { App } from '../http/app.js';
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

export function registerEventRoutes(app: App, ctx: Context): void {
  const { pool } = ctx.store;
  app.get(
    EVENTS,
    {
      config: read,
      schema: { tags, summary: 'List events', params: ApiKeyParams, response: { 200: Type.Array(EventOut) } },
    },
    async (request) => listEvents(pool, request.params.apiKey),
  );
  app.post(
    EVENTS,
    {
      config: write,
      schema: {
        tags,
        summary: 'Create an event (with or without ~attributes)',
        params: ApiKeyParams,
        body: EventInput,
        response: { 201: EventOut },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createEvent(pool, request.params.apiKey, request.body)),
  );
  app.get(
    EVENT,
    {
      config: read,
      schema: { tags, summary: 'Read an event', params: EventParams, response: { 200: EventOut } },
    },
    async (request) => getEvent(pool, request.params.apiKey, request.params.eventShortCode),
  );
  app.route({
    method: ['PUT', 'PATCH'],
    url: EVENT,
    config: write,
    schema: {
      tags,
      summary: 'Update an event: only the fields sent change (~attributes sent replaces the list)',
      params: EventParams,
      body: partialOf(EventInput),
      response: { 200: EventOut },
    },
    handler: async (request) =>
      updateEvent(pool, request.params.apiKey, request.params.eventShortCode, request.body),
  });
  app.delete(
    EVENT,
    {
      config: write,
      schema: { tags, summary: 'Delete an event', params: EventParams, response: { 200: Message } },
    },
    async (request) => {
      await deleteEvent(pool, request.params.apiKey, request.params.eventShortCode);
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
        summary: "List an event's attributes",
        params: EventParams,
        response: { 200: Type.Array(AttributeOut) },
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
        summary: 'Add an attribute to an event',
        params: EventParams,
        body: AttributeInput,
        response: { 201: AttributeOut },
      },
    },
    async (request, reply) => {
      const { apiKey, eventShortCode } = request.params;
      return reply.code(201).send(await createAttribute(pool, apiKey, eventShortCode, request.body));
    },
  );
  app.get(
    ATTRIBUTE,
    {
      config: read,
      schema: {
        tags,
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
  app.route({
    method: ['PUT', 'PATCH'],
    url: ATTRIBUTE,
    config: write,
    schema: {
      tags,
      summary: 'Update an attribute: only the fields sent change',
      params: AttributeParams,
      body: partialOf(AttributeInput),
      response: { 200: AttributeOut },
    },
    handler: async (request) => {
      const { apiKey, eventShortCode, attributeShortCode } = request.params;
      return updateAttribute(pool, apiKey, eventShortCode, attributeShortCode, request.body);
    },
  });
  app.delete(
    ATTRIBUTE,
    {
      config: write,
      schema: { tags, summary: 'Delete an attribute', params: AttributeParams, response: { 200: Message } },
    },
    async (request) => {
      const { apiKey, eventShortCode, attributeShortCode } = request.params;
      await deleteAttribute(pool, apiKey, eventShortCode, attributeShortCode);
      return SUCCESS;
    },
  );
}
