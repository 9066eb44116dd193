import { Argument, Option, type Command } from 'commander';
import { BpayAdmin } from '@bpay/sdk';
import { updateProfile } from '../config';
import { adminClient, isJson, settings, spin, type Ctx } from '../context';
import { formatDetails, formatTable, formatTime, parseIntFlag, printJson, UsageError, type Int, type Io } from '../output';
import { ask } from '../prompt';

/*
 * `bpay admin …`: the admin API with a bearer token from `bpay admin login` (username, password, TOTP code), kept
 * in the profile (the config file is 0600). Tokens are short-lived (15 minutes by default); a 401 means sign in
 * again. Logout revokes the token on the server and forgets it here even if the server cannot be reached.
 */

export const KYC_STATUSES = ['pending', 'processing', 'verified', 'failed', 'requires_input'] as const;
export const ROLES = ['user', 'merchant', 'admin'] as const;
export const ASSIGNABLE_ROLES = ['user', 'merchant'] as const;

interface KycView {
  id: string;
  status: string;
  documentType?: string | null;
  documentCountry?: string | null;
  firstName: string;
  lastName: string;
  riskScore?: Int | null;
  adminNotes?: string | null;
  createdAt: string;
  reviewedAt: string | null;
  user: { id: string; email: string };
  documents?: ReadonlyArray<{ id: string; name?: string; contentType?: string }>;
}

function printKyc(io: Io, v: KycView): void {
  io.out(
    formatDetails([
      ['ID', v.id],
      ['Status', v.status],
      ['User', `${v.user.email} (${v.user.id})`],
      ['Name', `${v.firstName} ${v.lastName}`],
      ['Document', [v.documentType, v.documentCountry].filter(Boolean).join(', ') || null],
      ['Documents', v.documents?.length ? v.documents.map((d) => d.name ?? d.id).join(', ') : null],
      ['Risk score', v.riskScore ?? null],
      ['Notes', v.adminNotes ?? null],
      ['Submitted', formatTime(v.createdAt)],
      ['Reviewed', formatTime(v.reviewedAt)],
    ]),
  );
}

export function registerAdmin(program: Command, ctx: Ctx): void {
  const admin = program
    .command('admin')
    .summary('Admin API: sign in, KYC review, users')
    .description('The admin API, with a token from `bpay admin login` kept in the profile (mode 0600).');

  admin
    .command('login')
    .summary('Sign in as an admin (username, password, authenticator code)')
    .description('Sign in and keep the token in the profile. Asks for what is not given (password and code without echo), or reads the answers line by line from a piped stdin.')
    .option('--username <name>', 'Admin username')
    .option('--password <password>', 'Password (better typed at the prompt: flags end up in shell history)')
    .option('--code <code>', "The authenticator app's current 6-digit code")
    .action(async (opts: { username?: string; password?: string; code?: string }, cmd: Command) => {
      const s = settings(ctx, cmd);
      const username = opts.username ?? (await ask('Username: ', { what: 'username' }));
      const password = opts.password ?? (await ask('Password: ', { secret: true, what: 'password' }));
      const code = opts.code ?? (await ask('Authenticator code: ', { secret: true, what: 'authenticator code' }));
      if (!/^\d{6}$/.test(code)) throw new UsageError('The authenticator code is 6 digits.');
      const signedIn = await spin(ctx, cmd, `Signing in to ${s.baseUrl}`, () => BpayAdmin.login({ baseUrl: s.baseUrl, username, password, code }));
      updateProfile(s.configPath, s.profile, {
        adminToken: signedIn.token,
        adminUsername: username,
        ...(s.baseUrlSource === 'flag' || s.baseUrlSource === 'env' ? { baseUrl: s.baseUrl } : {}),
      });
      // The login answer's expiresAt (the SDK keeps it on the client): said in UTC, as every time the CLI prints.
      const expiresAt = signedIn.expiresAt ?? null;
      if (isJson(cmd)) printJson(ctx.io, { profile: s.profile, username, baseUrl: s.baseUrl, expiresAt });
      else {
        const until = expiresAt ? `The token expires at ${formatTime(expiresAt)}` : 'The token is short-lived';
        ctx.io.out(`Signed in as ${username} (profile "${s.profile}"). ${until}: run \`bpay admin login\` again after that.\n`);
      }
    });

  admin
    .command('logout')
    .summary('Revoke the admin token and forget it')
    .action(async (_opts: Record<string, never>, cmd: Command) => {
      const s = settings(ctx, cmd);
      if (!s.adminToken) return ctx.io.out('Not signed in as an admin.\n');
      let revoked = true;
      try {
        await spin(ctx, cmd, 'Signing out', () => new BpayAdmin(s.adminToken!, { baseUrl: s.baseUrl }).logout());
      } catch {
        revoked = false; // expired already, or the server is away: forgetting it locally is what matters here
      }
      updateProfile(s.configPath, s.profile, { adminToken: undefined, adminUsername: undefined });
      ctx.io.out(revoked ? 'Signed out.\n' : 'Forgot the token (the server did not confirm revoking it; it expires by itself).\n');
    });

  const kyc = admin.command('kyc').summary('Review identity verifications');

  kyc
    .command('list')
    .summary('Verifications, newest first')
    .addOption(new Option('--status <status>', 'Only this status').choices(KYC_STATUSES))
    .action(async (opts: { status?: (typeof KYC_STATUSES)[number] }, cmd: Command) => {
      const { admin: client } = adminClient(ctx, cmd);
      const list = await spin(ctx, cmd, 'Loading', () => client.kyc.list(opts.status ? { status: opts.status } : {}));
      if (isJson(cmd)) return printJson(ctx.io, list);
      if (list.length === 0) return ctx.io.out('No verifications.\n');
      ctx.io.out(
        formatTable(list, [
          { header: 'ID', value: (v) => v.id },
          { header: 'Status', value: (v) => v.status },
          { header: 'User', value: (v) => v.user.email },
          { header: 'Name', value: (v) => `${v.firstName} ${v.lastName}` },
          { header: 'Document', value: (v) => v.documentType },
          { header: 'Risk', value: (v) => v.riskScore, align: 'right' },
          { header: 'Submitted', value: (v) => formatTime(v.createdAt) },
        ]),
      );
    });

  kyc
    .command('show')
    .alias('get')
    .summary('One verification with its user and documents')
    .argument('<id>', 'Verification id')
    .action(async (id: string, _opts: Record<string, never>, cmd: Command) => {
      const { admin: client } = adminClient(ctx, cmd);
      const v = await spin(ctx, cmd, 'Loading', () => client.kyc.retrieve(id));
      if (isJson(cmd)) printJson(ctx.io, v);
      else printKyc(ctx.io, v);
    });

  kyc
    .command('review')
    .summary("Decide on a verification (the user's ID-verified state follows)")
    .argument('<id>', 'Verification id')
    .addOption(new Option('--status <status>', 'The decision').choices(KYC_STATUSES).makeOptionMandatory())
    .option('--risk <0-100>', 'Risk score, a whole number from 0 to 100')
    .option('--notes <text>', 'Notes for the record')
    .action(async (id: string, opts: { status: (typeof KYC_STATUSES)[number]; risk?: string; notes?: string }, cmd: Command) => {
      const riskScore = opts.risk !== undefined ? parseIntFlag(opts.risk, '--risk', 0, 100) : undefined;
      const { admin: client } = adminClient(ctx, cmd);
      const v = await spin(ctx, cmd, 'Saving', () =>
        client.kyc.review(id, {
          status: opts.status,
          ...(riskScore !== undefined ? { riskScore } : {}),
          ...(opts.notes !== undefined ? { adminNotes: opts.notes } : {}),
        }),
      );
      if (isJson(cmd)) printJson(ctx.io, v);
      else printKyc(ctx.io, v);
    });

  const users = admin.command('users').summary('List users, change their role or plan');

  users
    .command('list')
    .summary('Users, newest first')
    .option('--email <text>', 'Only e-mails containing this')
    .addOption(new Option('--role <role>', 'Only this role').choices(ROLES))
    .action(async (opts: { email?: string; role?: (typeof ROLES)[number] }, cmd: Command) => {
      const { admin: client } = adminClient(ctx, cmd);
      const list = await spin(ctx, cmd, 'Loading', () =>
        client.users.list({ ...(opts.email ? { search: opts.email } : {}), ...(opts.role ? { role: opts.role } : {}) }),
      );
      if (isJson(cmd)) return printJson(ctx.io, list);
      if (list.length === 0) return ctx.io.out('No users.\n');
      ctx.io.out(
        formatTable(list, [
          { header: 'ID', value: (u) => u.id },
          { header: 'Email', value: (u) => u.email },
          { header: 'Name', value: (u) => [u.firstName, u.lastName].filter(Boolean).join(' ') },
          { header: 'Role', value: (u) => u.role },
          { header: 'Plan', value: (u) => u.tier?.name ?? null },
          { header: 'KYC', value: (u) => (u.isKycVerified ? 'verified' : '') },
          { header: 'Created', value: (u) => formatTime(u.createdAt) },
        ]),
      );
    });

  users
    .command('set-role')
    .summary("Change a user's role")
    .argument('<id>', 'User id')
    // Admins are separate accounts (bun run admin:create): the server refuses role admin, so it is not offered.
    .addArgument(new Argument('<role>', 'user or merchant').choices(ASSIGNABLE_ROLES))
    .action(async (id: string, role: (typeof ASSIGNABLE_ROLES)[number], _opts: Record<string, never>, cmd: Command) => {
      const { admin: client } = adminClient(ctx, cmd);
      const u = await spin(ctx, cmd, 'Saving', () => client.users.setRole(id, role));
      if (isJson(cmd)) printJson(ctx.io, u);
      else ctx.io.out(`${u.email ?? id} is now ${role}.\n`);
    });

  users
    .command('set-tier')
    .summary("Move a user's subscription to another plan")
    .argument('<id>', 'User id')
    .argument('<tierId>', 'Plan id (tier_free, tier_pro, tier_premium, … see `bpay admin tiers`)')
    .action(async (id: string, tierId: string, _opts: Record<string, never>, cmd: Command) => {
      const { admin: client } = adminClient(ctx, cmd);
      const res = await spin(ctx, cmd, 'Saving', () => client.users.setTier(id, tierId));
      if (isJson(cmd)) printJson(ctx.io, res);
      else ctx.io.out(`${id} is now on ${tierId}.\n`);
    });

  admin
    .command('tiers')
    .summary('Subscription plans')
    .action(async (_opts: Record<string, never>, cmd: Command) => {
      const { admin: client } = adminClient(ctx, cmd);
      const tiers = await spin(ctx, cmd, 'Loading', () => client.tiers.list());
      if (isJson(cmd)) return printJson(ctx.io, tiers);
      ctx.io.out(
        formatTable(tiers, [
          { header: 'ID', value: (t) => t.id },
          { header: 'Name', value: (t) => t.displayName },
          { header: 'Price/month', value: (t) => `$${t.monthlyPrice.toFixed(2)}`, align: 'right' },
          { header: 'Fee', value: (t) => `${(t.transactionFeeRate * 100).toFixed(2)} %`, align: 'right' },
          { header: 'Active', value: (t) => (t.isActive ? 'yes' : 'no') },
        ]),
      );
    });
}
