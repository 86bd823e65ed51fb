// The Spark API typings (types/cloud-code.d.ts, exported as playbase/cloud-code): a script in the original's style
// type-checks against them alone, every call the sandbox defines on Spark is in them, and the console's completion
// (console/src/cloud-code/spark-api.json) is what scripts/spark-completions.ts makes of them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPARK_API_JSON, sparkApi } from '../../scripts/spark-completions.js';

describe('Spark API typings', () => {
  it('a script written as on the original platform type-checks against them (checkJs, strict)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'playbase-typings-'));
    try {
      const script = resolve('test/console/fixtures/spark-script.js');
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            allowJs: true,
            checkJs: true,
            noEmit: true,
            lib: ['es2020'],
            types: [],
          },
          files: [script],
        }),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const res = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
      expect(res.stdout + res.stderr).toBe('');
      expect(res.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every member the sandbox puts on Spark is typed, and nothing else is', () => {
    const prelude = readFileSync('src/script/prelude.ts', 'utf8');
    const body = /var Spark = \{([\s\S]*?)\n {2}\};/.exec(prelude)?.[1] ?? '';
    const defined = [...body.matchAll(/^ {4}(\w+):/gm)].map((m) => m[1]);
    const aliases = /alias\(Spark, \[([^\]]*)\]\)/.exec(prelude)?.[1]?.match(/\w+/g) ?? [];
    expect(defined.length).toBeGreaterThan(10);
    const typed = new Set(sparkApi().interfaces.Spark?.map((m) => m.name));
    expect([...defined, ...aliases].filter((name) => !typed.has(name as string))).toEqual([]);
    // A call the server does not have is not typed: a ported script that uses one fails its type check.
    const served = new Set<string>([...defined, ...aliases] as string[]);
    expect([...typed].filter((name) => !served.has(name as string))).toEqual([]);
  });

  it('every member typed on SparkPlayer is one the sandbox defines', () => {
    const prelude = readFileSync('src/script/prelude.ts', 'utf8');
    const defined = new Set([...prelude.matchAll(/Player\.prototype\.(\w+) =/g)].map((m) => m[1]));
    expect(defined.has('getPlayerId')).toBe(true);
    // credit1..6, debit1..6 and getBalance1..6 are made in a loop: Player.prototype['credit' + n] = ...
    const looped = new Set([...prelude.matchAll(/Player\.prototype\['(\w+)' \+ n\] =/g)].map((m) => m[1]));
    const made = (name: string) => /^\w+[1-6]$/.test(name) && looped.has(name.slice(0, -1));
    const typed = sparkApi().interfaces.SparkPlayer?.map((m) => m.name) ?? [];
    expect(typed.length).toBeGreaterThan(10);
    expect(typed.filter((name) => !defined.has(name) && !made(name))).toEqual([]);
  });

  it('SparkRequests types the classes and calls the sandbox defines, and nothing else', () => {
    const lib = readFileSync('src/script/prelude-requests.ts', 'utf8');
    const names = /var NAMES = \[([^\]]*)\]/.exec(lib)?.[1]?.match(/\w+/g) ?? [];
    expect(names).toContain('LogEventRequest');
    expect(
      sparkApi()
        .interfaces.SparkRequestsNamespace?.map((m) => m.name)
        .sort(),
    ).toEqual([...names].sort());
    const calls = [...lib.matchAll(/C\.prototype\.(\w+) =/g)].map((m) => m[1]).sort();
    expect(calls).toEqual(['Execute', 'ExecuteAs', 'Send', 'SendAs']);
    expect(
      sparkApi()
        .interfaces.SparkRequest?.map((m) => m.name)
        .sort(),
    ).toEqual(calls);
  });

  it("the console's completion is generated from them (npm run console:build)", () => {
    expect(JSON.parse(readFileSync(SPARK_API_JSON, 'utf8'))).toEqual(sparkApi());
    const api = sparkApi();
    expect(api.globals.map((g) => g.name)).toEqual(['Spark', 'SparkRequests', 'require', 'requireOnce']);
    expect(api.interfaces.Spark?.find((m) => m.name === 'getPlayer')?.returns).toBe('SparkPlayer');
    expect(api.interfaces.SparkMongoCollectionReadWrite?.some((m) => m.name === 'findOne')).toBe(true);
  });
});
