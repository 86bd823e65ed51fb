// Live against Preview: Live runs the published snapshot (its credentials too), Preview the working copy; a
// configuration change reaches the runtime within a second; players and data are per stage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeKind } from '../harness.js';
import { GAME_CONFIG, type Json, type RuntimeWorld, startRuntimeWorld } from './world.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const withSort = (sort: 'ASC' | 'DESC') => ({
  ...GAME_CONFIG,
  '~leaderboards': [
    {
      shortCode: 'HSLB',
      name: 'High scores',
      fields: [{ runningTotal: { '@ref': '/~runningTotals/HS' }, collector: 'SCORE', sort }],
    },
  ],
});

describe(`Live and Preview stages (${storeKind})`, () => {
  let w: RuntimeWorld;
  const scores = async (stage: 'live' | 'preview') =>
    (await w.ask('LeaderboardDataRequest', { leaderboardShortCode: 'HSLB' }, stage)).data.map(
      (e: Json) => e.SCORE,
    );

  beforeAll(async () => {
    w = await startRuntimeWorld(withSort('DESC'));
  });
  afterAll(async () => w.close());

  it('before the first publish Live knows no credential → 403; Preview runs the working copy', async () => {
    const live = await w.rs('RegistrationRequest', { userName: 'x', password: 'y' }, { stage: 'live' });
    expect(live.statusCode).toBe(403);
    expect(live.json().code).toBe('RUNTIME_CREDENTIAL_INVALID');
    expect((await w.rs('RegistrationRequest', { userName: 'x', password: 'y' })).statusCode).toBe(200);
  });

  it('after publishing, Live runs; players are per stage (same name twice, and ids unknown across stages)', async () => {
    await w.publish();
    const live = await w.player('sam', 'live');
    const preview = await w.player('sam', 'preview');
    expect(live).not.toBe(preview);
    expect((await w.ask('AccountDetailsRequest', { playerId: preview }, 'live')).error).toEqual({
      playerId: 'UNRECOGNISED',
    });
    expect((await w.ask('AccountDetailsRequest', { playerId: live }, 'live')).userId).toBe(live);
    expect(await w.find('player', { query: { userName: 'sam' } }, 'live')).toHaveLength(1);
  });

  it('a working-copy change reaches Preview within a second and never Live; a changed ranking starts afresh', async () => {
    const players = { live: [] as string[], preview: [] as string[] };
    for (const stage of ['live', 'preview'] as const) {
      for (const name of ['a1', 'a2']) players[stage].push(await w.player(name, stage));
      for (const [i, score] of [10, 20].entries()) {
        await w.ask(
          'LogEventRequest',
          { eventKey: 'score', playerId: players[stage][i], SCORE: score },
          stage,
        );
      }
      expect(await scores(stage)).toEqual([20, 10]);
    }
    await w.putConfig(withSort('ASC'));
    await sleep(1100);
    // Preview's leaderboard now ranks lowest first: its entries made under DESC are not carried over.
    expect(await scores('preview')).toEqual([]);
    for (const [i, score] of [10, 20].entries()) {
      await w.ask('LogEventRequest', { eventKey: 'score', playerId: players.preview[i], SCORE: score });
    }
    expect(await scores('preview')).toEqual([10, 20]);
    expect(await scores('live')).toEqual([20, 10]);
    // Publishing the change brings it to Live.
    await w.publish();
    await sleep(1100);
    await w.ask('LogEventRequest', { eventKey: 'score', playerId: players.live[0], SCORE: 5 }, 'live');
    expect(await scores('live')).toEqual([5]);
  });

  it('an event added to the working copy runs in Preview only until published', async () => {
    const config = withSort('ASC');
    const extra = { name: 'Ping', shortCode: 'ping', description: '', '~attributes': [] };
    await w.putConfig({ ...config, '~events': [...config['~events'], extra] });
    await sleep(1100);
    const previewPlayer = await w.player('pinger', 'preview');
    const livePlayer = await w.player('pinger', 'live');
    expect(await w.ask('LogEventRequest', { eventKey: 'ping', playerId: previewPlayer })).toEqual({
      '@class': '.LogEventResponse',
    });
    expect(
      (await w.ask('LogEventRequest', { eventKey: 'ping', playerId: livePlayer }, 'live')).error,
    ).toEqual({ eventKey: 'INVALID' });
  });

  it('a credential made after the publish is not Live yet; Preview takes it at once', async () => {
    const { secret } = await w.ok('POST', `/restv2/game/${w.apiKey}/config/~credentials`, { name: 'later' });
    const body = { '@class': '.LeaderboardDataRequest', leaderboardShortCode: 'HSLB' };
    expect((await w.rs('LeaderboardDataRequest', body, { credential: 'later', secret })).statusCode).toBe(
      200,
    );
    const live = await w.rs('LeaderboardDataRequest', body, { stage: 'live', credential: 'later', secret });
    expect(live.statusCode).toBe(403);
  });
});
