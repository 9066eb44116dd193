/*
 * The command tree in-process (no server, no subprocess): help, usage errors and exit codes, completion scripts
 * generated from the tree, and the small pure pieces the commands are built from.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { REFUND_REASONS as API_REFUND_REASONS } from '../../db/schema/merchants';
import { EVENT_TYPES as API_EVENT_TYPES } from '../../api/src/modules/events/emit';
import { bashCompletion, completionTree, zshCompletion } from './commands/completion';
import { EVENT_TYPES, parseEventList } from './commands/events';
import { listenSecret, reconnectDelay } from './commands/listen';
import { parseExpiry } from './commands/payment-intents';
import { parseIntentId, parseRefundAmount, REFUND_REASONS } from './commands/refunds';
import { FIXTURES } from './commands/trigger';
import type { Ctx } from './context';
import { buildProgram, run } from './index';
import { UsageError } from './output';

function capture(env: Record<string, string> = {}) {
  const io = { stdout: '', stderr: '' };
  const ctx: Ctx = {
    env,
    io: { out: (s) => void (io.stdout += s), err: (s) => void (io.stderr += s), errIsTTY: false },
  };
  return { ctx, io };
}

/** Runs argv in-process with an empty config folder; answers the exit code and what was printed. */
async function runIn(argv: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bpay-cli-unit-'));
  try {
    const { ctx, io } = capture({ XDG_CONFIG_HOME: dir, HOME: dir, ...env });
    const code = await run(argv, ctx);
    return { code, ...io };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('exit codes without a server', () => {
  const table: Array<{ name: string; argv: string[]; env?: Record<string, string>; code: number; stderr?: string; stdout?: string }> = [
    { name: 'help is a success', argv: ['--help'], code: 0, stdout: 'BPAY_API_KEY' },
    { name: 'subcommand help is a success', argv: ['payment-intents', 'create', '--help'], code: 0, stdout: '--amount <cents>' },
    { name: '--version', argv: ['--version'], code: 0, stdout: '0.1.0' },
    { name: 'unknown command', argv: ['payments'], code: 2, stderr: "unknown command 'payments'" },
    { name: 'unknown flag', argv: ['usage', '--nope'], code: 2, stderr: "unknown option '--nope'" },
    { name: 'missing required flag', argv: ['payment-intents', 'create'], code: 2, stderr: "required option '--amount <cents>' not specified" },
    { name: 'missing argument', argv: ['payment-intents', 'get'], code: 2, stderr: "missing required argument 'id'" },
    { name: 'no key anywhere', argv: ['payment-intents', 'list'], code: 2, stderr: 'No API key. Run `bpay login` or pass --api-key / set BPAY_API_KEY.' },
    { name: 'amount not in cents', argv: ['pi', 'create', '--amount', '12.50', '--api-key', 'sk_test_x'], code: 2, stderr: '--amount must be a whole number' },
    { name: 'bad metadata', argv: ['pi', 'create', '--amount', '100', '--metadata', 'oops', '--api-key', 'sk_test_x'], code: 2, stderr: '--metadata takes key=value' },
    { name: 'confirm without a method', argv: ['pi', 'confirm', 'pi_1', '--api-key', 'sk_test_x'], code: 2, stderr: '--payment-method' },
    { name: 'confirm with both methods', argv: ['pi', 'confirm', 'pi_1', '--payment-method', 'bc_1', '--card', '4242', '--api-key', 'sk_test_x'], code: 2, stderr: 'not both' },
    { name: 'bad expiry', argv: ['pi', 'confirm', 'pi_1', '--card', '4242424242424242', '--exp', '13/30', '--cvc', '123', '--api-key', 'sk_test_x'], code: 2, stderr: '--exp takes MM/YY' },
    { name: 'bad cancel reason', argv: ['pi', 'cancel', 'pi_1', '--reason', 'bored'], code: 2, stderr: "Allowed choices are duplicate" },
    { name: 'unknown event type for webhooks', argv: ['webhooks', 'create', '--url', 'http://x', '--events', 'pi.done', '--api-key', 'sk_test_x'], code: 2, stderr: 'unknown event type pi.done' },
    { name: 'update with nothing to change', argv: ['webhooks', 'update', 'we_1', '--api-key', 'sk_test_x'], code: 2, stderr: 'Nothing to change' },
    { name: 'unknown trigger event', argv: ['trigger', 'charge.succeeded'], code: 2, stderr: "Allowed choices are payment_intent.created" },
    { name: 'listen needs a target', argv: ['listen', '--api-key', 'sk_test_x'], code: 2, stderr: '--forward-to' },
    { name: 'risk out of range', argv: ['admin', 'kyc', 'review', 'kyc_1', '--status', 'verified', '--risk', '101'], code: 2, stderr: '--risk must be a whole number from 0 to 100' },
    { name: 'risk not a whole number', argv: ['admin', 'kyc', 'review', 'kyc_1', '--status', 'verified', '--risk', '2.5'], code: 2, stderr: '--risk' },
    { name: 'review needs a status', argv: ['admin', 'kyc', 'review', 'kyc_1'], code: 2, stderr: "required option '--status <status>'" },
    { name: 'admin commands need a sign-in', argv: ['admin', 'kyc', 'list'], code: 2, stderr: 'bpay admin login' },
    { name: 'refund without a payment intent', argv: ['refunds', 'create', '--api-key', 'sk_test_x'], code: 2, stderr: "required option '--payment-intent <id>' not specified" },
    { name: 'refund of something that is not an intent', argv: ['refunds', 'create', '--payment-intent', 're_123', '--api-key', 'sk_test_x'], code: 2, stderr: '--payment-intent takes a payment intent id (pi_…), got "re_123"' },
    { name: 'refund amount not in cents', argv: ['refunds', 'create', '--payment-intent', 'pi_1', '--amount', '5.00', '--api-key', 'sk_test_x'], code: 2, stderr: '--amount must be a whole number from 1 to 99999999 (got "5.00")' },
    { name: 'refund amount zero', argv: ['refunds', 'create', '--payment-intent', 'pi_1', '--amount', '0', '--api-key', 'sk_test_x'], code: 2, stderr: '--amount must be a whole number from 1' },
    { name: 'unknown refund reason', argv: ['refunds', 'create', '--payment-intent', 'pi_1', '--reason', 'changed_mind'], code: 2, stderr: 'Allowed choices are duplicate, fraudulent, requested_by_customer' },
    { name: 'bad refund metadata', argv: ['refunds', 'create', '--payment-intent', 'pi_1', '--metadata', '=x', '--api-key', 'sk_test_x'], code: 2, stderr: '--metadata takes key=value' },
    { name: 'empty idempotency key', argv: ['refunds', 'create', '--payment-intent', 'pi_1', '--idempotency-key', ' ', '--api-key', 'sk_test_x'], code: 2, stderr: '--idempotency-key cannot be empty' },
    { name: 'refunds get needs an id', argv: ['refunds', 'get'], code: 2, stderr: "missing required argument 'id'" },
    { name: 'refunds list filter is an intent id', argv: ['refunds', 'list', '--payment-intent', 'order-42', '--api-key', 'sk_test_x'], code: 2, stderr: '--payment-intent takes a payment intent id' },
    { name: 'refunds list limit', argv: ['refunds', 'list', '--limit', 'lots', '--api-key', 'sk_test_x'], code: 2, stderr: '--limit must be a whole number' },
    { name: 'refunds need a key', argv: ['refunds', 'list'], code: 2, stderr: 'No API key.' },
    { name: 'completion for an unknown shell', argv: ['completion', 'fish'], code: 2, stderr: 'Allowed choices are bash, zsh' },
  ];
  for (const row of table) {
    test(`${row.name} → ${row.code}`, async () => {
      const r = await runIn(row.argv, row.env);
      expect(r.code).toBe(row.code);
      if (row.stderr) expect(r.stderr).toContain(row.stderr);
      if (row.stdout) expect(r.stdout).toContain(row.stdout);
      // Scripts read stdout: a failure never writes there.
      if (row.code !== 0) expect(r.stdout).toBe('');
    });
  }

  test('trigger refuses a production key (exit 1, before any request)', async () => {
    const r = await runIn(['trigger', 'payment_intent.succeeded', '--api-key', 'sk_live_abc']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sandbox only');
  });

  test('an unreachable server is exit 1 with the reason', async () => {
    const r = await runIn(['usage', '--api-key', 'sk_test_x', '--base-url', 'http://127.0.0.1:9'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).not.toContain('Request ID');
  }, 20_000);

  test('--help documents the precedence of flags, variables and the profile', async () => {
    const r = await runIn(['--help']);
    expect(r.stdout).toContain('--api-key  >  BPAY_API_KEY   >  the profile');
    expect(r.stdout).toContain('--base-url >  BPAY_BASE_URL  >  the profile');
    expect(r.stdout).toContain('--profile  >  BPAY_PROFILE   >  "default"');
  });

  test('trigger --help lists every supported event', async () => {
    const r = await runIn(['trigger', '--help']);
    for (const name of Object.keys(FIXTURES)) expect(r.stdout).toContain(name);
  });
});

describe('completion', () => {
  const program = buildProgram(capture().ctx);
  const paths = (cmd: Command, prefix: string): string[] =>
    cmd.commands.filter((c) => c.name() !== 'help').flatMap((c) => [`${prefix} ${c.name()}`, ...paths(c, `${prefix} ${c.name()}`)]);

  test('the tree has a node for every command, with its subcommands, options and argument choices', () => {
    const tree = completionTree(program);
    const byPath = new Map(tree.map((n) => [n.path, n.words.map((w) => w.word)]));
    expect([...byPath.keys()].sort()).toEqual(['bpay', ...paths(program, 'bpay')].sort());
    expect(byPath.get('bpay')).toEqual(expect.arrayContaining(['login', 'payment-intents', 'pi', 'listen', 'trigger', 'admin', '--api-key', '--json']));
    expect(byPath.get('bpay payment-intents')).toEqual(expect.arrayContaining(['create', 'get', 'list', 'confirm', 'capture', 'cancel', '--json']));
    expect(byPath.get('bpay payment-intents create')).toEqual(expect.arrayContaining(['--amount', '--currency', '--metadata', '--capture-method', '--api-key']));
    expect(byPath.get('bpay trigger')).toEqual(expect.arrayContaining(Object.keys(FIXTURES)));
    expect(byPath.get('bpay admin kyc')).toEqual(expect.arrayContaining(['list', 'show', 'review']));
    expect(byPath.get('bpay')).toEqual(expect.arrayContaining(['refunds']));
    expect(byPath.get('bpay refunds')).toEqual(expect.arrayContaining(['create', 'get', 'retrieve', 'list', '--json']));
    expect(byPath.get('bpay refunds create')).toEqual(
      expect.arrayContaining(['--payment-intent', '--amount', '--reason', '--metadata', '--idempotency-key', '--api-key']),
    );
    expect(byPath.get('bpay refunds list')).toEqual(expect.arrayContaining(['--payment-intent', '--limit', '--all']));
    expect(byPath.get('bpay trigger')).toEqual(expect.arrayContaining(['charge.refunded']));
    expect(byPath.get('bpay completion')).toEqual(expect.arrayContaining(['bash', 'zsh']));
  });

  test('bash: one case per command path; aliases lead to their command', () => {
    const script = bashCompletion(program);
    expect(script).toContain('complete -F _bpay_completion bpay');
    for (const p of ['bpay', ...paths(program, 'bpay')]) expect(script).toContain(`"${p}") words=`);
    expect(script).toContain('"bpay pi") p="bpay payment-intents"');
    expect(script).toMatch(/"bpay trigger"\) words='[^']*payment_intent\.succeeded/);
    expect(script).toMatch(/"bpay refunds create"\) words='[^']*--payment-intent/);
    expect(script).toContain('"bpay refunds retrieve") p="bpay refunds get"');
  });

  test('zsh: a compdef function with described entries', () => {
    const script = zshCompletion(program);
    expect(script.startsWith('#compdef bpay\n')).toBe(true);
    expect(script).toContain("'listen:Forward your events to a local URL, signed like real webhooks'");
    expect(script).toContain('compdef _bpay bpay');
    expect(script).not.toMatch(/local path=/);
  });

  test('a new command completes without touching the generator', () => {
    const p = buildProgram(capture().ctx);
    p.command('disputes').command('create').option('--charge <id>');
    expect(bashCompletion(p)).toContain(`"bpay disputes create") words='--charge`);
  });

  test('the bash script is valid bash and completes subcommands', async () => {
    const script = bashCompletion(program);
    const probe = `${script}\nCOMP_WORDS=(bpay pi cr); COMP_CWORD=2; _bpay_completion; echo "\${COMPREPLY[@]}"\nCOMP_WORDS=(bpay --json admin kyc ''); COMP_CWORD=4; _bpay_completion; echo "\${COMPREPLY[@]}"`;
    const proc = Bun.spawn(['bash', '-c', probe], { stdout: 'pipe', stderr: 'pipe' });
    const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
    expect(err).toBe('');
    const [first, second] = out.trim().split('\n');
    expect(first).toBe('create');
    expect(second!.split(' ')).toEqual(expect.arrayContaining(['list', 'show', 'review', '--help', '--json']));
  });

  // zsh is not part of the base image; the test runs where it is installed.
  test.skipIf(!Bun.which('zsh'))('the zsh script loads in zsh and offers the words of the command path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bpay-zsh-'));
    try {
      await Bun.write(join(dir, '_bpay'), zshCompletion(program));
      // _describe is stubbed to print the names it would offer.
      const probe = [
        'autoload -U compinit && compinit -u -d "$TMPDIR/zcompdump"',
        `source ${join(dir, '_bpay')}`,
        '_describe() { print -l -- ${(P)4} | cut -d: -f1 | tr "\\n" " "; print }',
        "words=(bpay pi ''); CURRENT=3; _bpay",
        "words=(bpay --json admin kyc ''); CURRENT=5; _bpay",
      ].join('\n');
      const proc = Bun.spawn(['zsh', '-f', '-c', probe], { env: { PATH: process.env.PATH ?? '', TMPDIR: dir, HOME: dir }, stdout: 'pipe', stderr: 'pipe' });
      const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
      expect(err).toBe('');
      const [first, second] = out.trim().split('\n');
      expect(first!.split(' ')).toEqual(expect.arrayContaining(['create', 'get', 'list', 'confirm', '--json']));
      expect(second!.split(' ')).toEqual(expect.arrayContaining(['list', 'show', 'review']));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pieces', () => {
  test('the CLI knows exactly the event types the API emits', () => {
    expect([...EVENT_TYPES]).toEqual([...API_EVENT_TYPES]);
  });

  test('parseEventList', () => {
    expect(parseEventList('payment_intent.succeeded, payment_intent.failed')).toEqual(['payment_intent.succeeded', 'payment_intent.failed']);
    expect(parseEventList('*')).toEqual(['*']);
    expect(() => parseEventList('webhook_endpoint.test')).toThrow(UsageError);
    expect(() => parseEventList(' , ')).toThrow(UsageError);
  });

  test('the listen secret is stable per key and differs between keys', () => {
    const a = listenSecret('sk_test_aaaa');
    expect(a).toMatch(/^whsec_[0-9a-f]{32}$/);
    expect(listenSecret('sk_test_aaaa')).toBe(a);
    expect(listenSecret('sk_test_aaab')).not.toBe(a);
    expect(a).not.toContain('aaaa');
  });

  test('reconnect delays grow to 30 s and never exceed it', () => {
    for (let i = 0; i < 12; i++) {
      const d = reconnectDelay(i);
      const nominal = Math.min(30_000, 1000 * 2 ** i);
      expect(d).toBeLessThanOrEqual(nominal);
      expect(d).toBeGreaterThanOrEqual(nominal * 0.8);
    }
  });

  test('refund pieces: intent ids, amounts from 1 cent, the reasons the API takes', () => {
    expect(parseIntentId(' pi_3f2a9c1d0b7e6f5a4c3b2a19 ')).toBe('pi_3f2a9c1d0b7e6f5a4c3b2a19');
    for (const bad of ['re_1', 'pi_', 'pi_1 2', '3f2a', 'pi_1;rm']) expect(() => parseIntentId(bad)).toThrow(UsageError);
    expect(parseRefundAmount('1')).toBe(1);
    expect(parseRefundAmount('99999999')).toBe(99_999_999);
    for (const bad of ['0', '-5', '1.5', '100000000', '']) expect(() => parseRefundAmount(bad)).toThrow(UsageError);
    expect([...REFUND_REASONS]).toEqual([...API_REFUND_REASONS]);
  });

  test('parseExpiry', () => {
    expect(parseExpiry('12/27')).toEqual({ exp_month: 12, exp_year: 2027 });
    expect(parseExpiry('3/2030')).toEqual({ exp_month: 3, exp_year: 2030 });
    for (const bad of ['13/27', '00/27', '1227', '12/7']) expect(() => parseExpiry(bad)).toThrow(UsageError);
  });
});
