// What the audit hook records: which routes, and the redaction of paths and configuration documents.

import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { App } from '../route/app.js';
import { auditAreaOf, redactPath, redactSecrets, registerAuditHook } from './audit-hook.js';

describe('auditAreaOf', () => {
  it('auth, games, configuration, admin and manage routes → their area; runtime data and discovery → none', () => {
    expect(auditAreaOf('/restv2/auth/game/:apiKey/collaborators')).toBe('auth');
    expect(auditAreaOf('/restv2/games')).toBe('game');
    expect(auditAreaOf('/restv2/game/:apiKey')).toBe('game');
    expect(auditAreaOf('/restv2/game/:apiKey/restore')).toBe('game');
    expect(auditAreaOf('/restv2/game/:apiKey/config/~events/:shortCode')).toBe('config');
    expect(auditAreaOf('/restv2/game/:apiKey/config')).toBe('config');
    expect(auditAreaOf('/restv2/game/:apiKey/admin/pushNotifications/test/:provider')).toBe('admin');
    expect(auditAreaOf('/restv2/game/:apiKey/manage/screens')).toBe('manage');
    expect(auditAreaOf('/restv2/game/:gameApiKey/endpoints')).toBeUndefined();
    expect(
      auditAreaOf('/preview/restv2/game/:gameApiKey/mongo/collection/:collectionName/insert'),
    ).toBeUndefined();
    expect(auditAreaOf('/restv2/game/:apiKey/configuration')).toBeUndefined();
  });
});

describe('registration check', () => {
  const withRoute = async (config: Record<string, unknown>) => {
    const app = Fastify() as unknown as App;
    registerAuditHook(app);
    try {
      app.post('/restv2/games', { config }, async () => ({}));
      await app.ready();
    } finally {
      await app.close();
    }
  };

  it('an audited write whose service records its entry (auditInline) → registers', async () => {
    await expect(withRoute({ audit: 'game', auditInline: true })).resolves.toBeUndefined();
  });

  it('an audited write whose service records nothing → the start fails, naming the route', async () => {
    await expect(withRoute({ audit: 'game' })).rejects.toThrow(/\/restv2\/games is audited \(game\)/);
  });

  it('a write without the area its URL implies → the start fails', async () => {
    await expect(withRoute({ auditInline: true })).rejects.toThrow(/its URL implies game/);
  });
});

describe('redaction', () => {
  it('credential-like query values → REDACTED, others kept', () => {
    expect(redactPath('/restv2/auth/x?X-SVCAccessToken=abc&full=true')).toBe(
      '/restv2/auth/x?X-SVCAccessToken=REDACTED&full=true',
    );
    expect(redactPath('/a?password=p&secret=s')).toBe('/a?password=REDACTED&secret=REDACTED');
    expect(redactPath('/a')).toBe('/a');
  });

  it('secret-looking scalar fields at any depth → REDACTED; objects under such names are walked', () => {
    const doc = {
      '~events': [{ shortCode: 'tokenGranted', name: 'x' }],
      apple: { keyPem: '-----BEGIN', keyId: 'K' },
      google: { serviceAccount: { private_key: 'pk', client_email: 'e' } },
      secretStuff: { nested: 1 },
    };
    expect(redactSecrets(doc)).toEqual({
      '~events': [{ shortCode: 'tokenGranted', name: 'x' }],
      apple: { keyPem: 'REDACTED', keyId: 'K' },
      google: { serviceAccount: { private_key: 'REDACTED', client_email: 'e' } },
      secretStuff: { nested: 1 },
    });
  });
});
