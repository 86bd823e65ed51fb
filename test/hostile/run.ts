// Runs the hostile cases against a listening server while a probe on its own thread times /healthz.
import { type Call, HOSTILE_COLLECTIONS, type HostileCase, hostileCases } from './cases.js';
import { HealthProbe } from './probe.js';

export interface CaseResult {
  name: string;
  status: number;
  /** The first 200 characters of a refusal's body (the error code and message). */
  refusal?: string;
  accepted: boolean;
  ms: number;
  /** The longest /healthz wait while the case ran. */
  healthzMaxMs: number;
  healthzProbes: number;
  healthzFailures: number;
}

/** A game on the server and a JWT for it, made with the administrator's Basic credentials. */
export async function hostileGame(baseUrl: string, basic: string): Promise<Call> {
  const headers = { authorization: basic, 'content-type': 'application/json' };
  const created = await fetch(`${baseUrl}/restv2/games`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'hostile inputs' }),
  });
  const { apiKey } = (await created.json()) as { apiKey: string };
  const issued = await fetch(`${baseUrl}/restv2/auth/game/${apiKey}/jwt?expireInSeconds=3600`, { headers });
  const jwt = ((await issued.json()) as Record<string, string>)['X-SVC-JWT'];
  if (!jwt) throw new Error(`no JWT for the hostile game (${issued.status})`);
  const mongo = `${baseUrl}/preview/restv2/game/${apiKey}/mongo/`;
  const call: Call = async (path, body) => {
    const res = await fetch(`${mongo}${path}`, {
      method: 'POST',
      headers: { 'x-svc-jwt': jwt, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: res.status, text: await res.text() };
  };
  for (const name of HOSTILE_COLLECTIONS) {
    const made = await call(`collection/${name}/runtime`, undefined);
    if (made.status !== 200) throw new Error(`collection ${name}: ${made.status} ${made.text}`);
  }
  return call;
}

export async function runHostile(
  baseUrl: string,
  call: Call,
  cases: HostileCase[] = hostileCases(),
  log: (line: string) => void = () => {},
): Promise<CaseResult[]> {
  const probe = new HealthProbe(baseUrl);
  const results: CaseResult[] = [];
  try {
    await probe.settle();
    for (const c of cases) {
      if (c.setup) await c.setup(call);
      const body = JSON.stringify(c.body());
      await probe.settle();
      const started = Date.now();
      const answer = await call(c.path, body);
      const ended = Date.now();
      await probe.settle(); // the probe in flight at the end has answered
      const worst = probe.worstBetween(started, ended);
      const result: CaseResult = {
        name: c.name,
        status: answer.status,
        accepted:
          c.accept.includes(answer.status) ||
          (c.mayTimeOut === true && answer.status === 503 && answer.text.includes('"QUERY_TIMEOUT"')),
        ms: ended - started,
        healthzMaxMs: worst.maxMs,
        healthzProbes: worst.probes,
        healthzFailures: worst.failures,
        ...(answer.status >= 300 ? { refusal: answer.text.slice(0, 200) } : {}),
      };
      log(
        `${c.name}: ${answer.status} in ${result.ms} ms; /healthz waited at most ${worst.maxMs} ms (${worst.probes} probes)` +
          (result.refusal ? ` — ${result.refusal}` : ''),
      );
      results.push(result);
    }
  } finally {
    await probe.stop();
  }
  return results;
}
