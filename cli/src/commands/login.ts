import type { Command } from 'commander';
import { Bpay } from '@bpay/sdk';
import { maskKey, readConfig, updateProfile, writeConfig } from '../config';
import { globalOptions, isJson, KEY_SHAPE, settings, spin, type Ctx } from '../context';
import { formatDetails, formatTable, printJson, UsageError } from '../output';
import { ask } from '../prompt';


export function registerAuth(program: Command, ctx: Ctx): void {
  program
    .command('login')
    .summary('Store a secret key under a profile')
    .description(
      'Check a secret key against the server and store it under a profile (mode 0600). Without --api-key it asks for ' +
        'the key (typed without echo), or reads it from stdin when stdin is a pipe. --base-url is stored with it.',
    )
    .addHelpText('after', '\nExamples:\n  bpay login\n  printf \'%s\\n\' "$KEY" | bpay login --profile shop --base-url https://pay.example.com')
    .action(async (_opts: Record<string, never>, cmd: Command) => {
      const g = globalOptions(cmd);
      const s = settings(ctx, cmd);
      // The key comes from the flag or the prompt; BPAY_API_KEY is for one-off runs, not something to store.
      const key = g.apiKey ?? (await ask('Secret key (sk_test_… or sk_live_…): ', { secret: true, what: 'secret key' }));
      if (!KEY_SHAPE.test(key)) throw new UsageError('That is not a secret key: it starts with sk_test_ or sk_live_.');
      const bpay = new Bpay(key, { baseUrl: s.baseUrl });
      await spin(ctx, cmd, `Checking the key with ${s.baseUrl}`, () => bpay.usage.retrieve());
      updateProfile(s.configPath, s.profile, {
        apiKey: key,
        // Remember a server named on this command line (or in the environment); keep what the profile had otherwise.
        ...(s.baseUrlSource === 'flag' || s.baseUrlSource === 'env' ? { baseUrl: s.baseUrl } : {}),
      });
      const mode = key.startsWith('sk_live_') ? 'production' : 'sandbox';
      if (isJson(cmd)) printJson(ctx.io, { profile: s.profile, key: maskKey(key), mode, baseUrl: s.baseUrl, configPath: s.configPath });
      else ctx.io.out(`Logged in (${mode}, ${maskKey(key)}) as profile "${s.profile}" for ${s.baseUrl}.\nSaved to ${s.configPath}.\n`);
    });

  program
    .command('logout')
    .summary("Remove the profile's secret key")
    .option('--all', 'Remove every profile (keys, base URLs and admin tokens)')
    .action((opts: { all?: boolean }, cmd: Command) => {
      const s = settings(ctx, cmd);
      if (opts.all) {
        writeConfig(s.configPath, { profiles: {} });
        ctx.io.out('Removed every profile.\n');
        return;
      }
      updateProfile(s.configPath, s.profile, { apiKey: undefined });
      ctx.io.out(`Removed the key of profile "${s.profile}".\n`);
    });

  program
    .command('config')
    .alias('profiles')
    .summary('Show the settings in effect and the stored profiles')
    .action((_opts: Record<string, never>, cmd: Command) => {
      const s = settings(ctx, cmd);
      const config = readConfig(s.configPath);
      const profiles = Object.entries(config.profiles).map(([name, p]) => ({
        name,
        current: name === s.profile,
        key: p.apiKey ? maskKey(p.apiKey) : null,
        baseUrl: p.baseUrl ?? null,
        admin: p.adminToken ? (p.adminUsername ?? 'signed in') : null,
      }));
      const current = {
        profile: s.profile,
        profileFrom: s.profileSource,
        key: s.apiKey ? maskKey(s.apiKey) : null,
        keyFrom: s.apiKeySource,
        baseUrl: s.baseUrl,
        baseUrlFrom: s.baseUrlSource,
        configPath: s.configPath,
      };
      if (isJson(cmd)) return printJson(ctx.io, { current, profiles });
      ctx.io.out(
        formatDetails([
          ['Profile', `${s.profile} (${s.profileSource})`],
          ['API key', s.apiKey ? `${maskKey(s.apiKey)} (${s.apiKeySource})` : 'none'],
          ['Base URL', `${s.baseUrl} (${s.baseUrlSource})`],
          ['Config file', s.configPath],
        ]),
      );
      if (profiles.length === 0) return ctx.io.out('\nNo stored profiles. Run `bpay login`.\n');
      ctx.io.out('\n');
      ctx.io.out(
        formatTable(profiles, [
          { header: '', value: (p) => (p.current ? '*' : '') },
          { header: 'Profile', value: (p) => p.name },
          { header: 'Key', value: (p) => p.key },
          { header: 'Base URL', value: (p) => p.baseUrl },
          { header: 'Admin', value: (p) => p.admin },
        ]),
      );
    });
}
