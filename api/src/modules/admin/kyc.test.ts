import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { schema } from '@bpay/db';
import { call, makeTestApp, type TestContext } from '../../../test-support/app';
import { registerUser } from '../../../test-support/world';
import { adminCall, adminToken, makeAdmin } from '../../../test-support/modules/admin';
import { kycForm } from '../../../test-support/modules/kyc';
import { KYC_FAILED_MESSAGE } from '../kyc/service';


let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await makeTestApp();
  await makeAdmin(ctx);
  token = await adminToken(ctx);
});
afterAll(() => ctx.close());

const api = (path: string, opts: { method?: string; body?: unknown } = {}) => adminCall(ctx, token, path, opts);

describe('KYC review', () => {
  test('queue, document, decision (audited), dashboard; consumer sees the result', async () => {
    const u = await registerUser(ctx);
    const sub = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie: u.cookie, rawBody: kycForm() });
    expect(sub.status).toBe(201);

    const pending = await api('/api/admin/kyc/verifications?status=pending');
    expect(pending.status).toBe(200);
    expect(pending.body).toHaveLength(1);
    const v = pending.body[0];
    expect(v).toMatchObject({ status: 'pending', documentType: 'passport', user: { id: u.user.id, email: u.email }, documentNumber: 'P1234567' });
    expect((await api('/api/admin/kyc/verifications?status=verified')).body).toEqual([]);
    expect((await api('/api/admin/kyc/verifications?status=done')).status).toBe(400);

    const one = await api(`/api/admin/kyc/verifications/${v.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(v);
    const missing = await api('/api/admin/kyc/verifications/kyc_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_not_found');
    expect((await call(ctx, `/api/admin/kyc/verifications/${v.id}`, { cookie: u.cookie })).status).toBe(401);

    const docRes = await adminCall(ctx, token, `/api/admin/kyc/documents/${v.documents[0].id}`);
    expect(docRes.status).toBe(200);
    expect(docRes.headers.get('content-type')).toBe('image/png');
    // Never rendered in bpay's origin: the admin panel reads it with the Bearer token into a blob URL instead.
    expect(docRes.headers.get('content-disposition')).toBe(`attachment; filename="passport.png"; filename*=UTF-8''passport.png`);
    expect(docRes.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docRes.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(new Uint8Array(Buffer.from(docRes.text, 'latin1')).length).toBeGreaterThan(0);
    expect((await api('/api/admin/kyc/documents/doc_nope')).status).toBe(404);

    for (const bad of [{ status: 'verified', riskScore: 20.5 }, { status: 'verified', riskScore: 101 }, { status: 'approved' }]) {
      const r = await api(`/api/admin/kyc/verifications/${v.id}`, { method: 'PATCH', body: bad });
      expect(r.status).toBe(400);
    }
    expect((await api('/api/admin/kyc/verifications/kyc_nope', { method: 'PATCH', body: { status: 'verified' } })).status).toBe(404);

    ctx.clock.advance(2 * 3600_000);
    token = await adminToken(ctx);
    const decided = await api(`/api/admin/kyc/verifications/${v.id}`, {
      method: 'PATCH',
      body: { status: 'verified', riskScore: 20, adminNotes: 'Looks good' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ status: 'verified', riskScore: 20, adminNotes: 'Looks good' });
    const user = await ctx.handle.db.query.users.findFirst({ where: eq(schema.users.id, u.user.id) });
    expect(user?.kycStatus).toBe('verified');
    const [audit] = await ctx.handle.db.select().from(schema.auditLog).where(eq(schema.auditLog.action, 'kyc.decision'));
    expect(audit?.before).toMatchObject({ status: 'pending', riskScore: null });
    expect(audit?.after).toMatchObject({ status: 'verified', riskScore: 20, adminNotes: 'Looks good' });

    const dash = await api('/api/admin/kyc/dashboard');
    expect(dash.body).toMatchObject({ totalVerifications: 1, pendingVerifications: 0, verifiedUsers: 1, rejectedVerifications: 0 });
    expect(dash.body.averageProcessingTime).toBeGreaterThanOrEqual(2);

    const status = await call(ctx, '/api/kyc/status', { cookie: u.cookie });
    expect(JSON.stringify(status.body)).toContain('"riskScore":20');
  });

  test('a consumer cookie reaches none of the KYC admin routes', async () => {
    const u = await registerUser(ctx);
    for (const [method, path, body] of [
      ['GET', '/api/admin/kyc/dashboard'],
      ['GET', '/api/admin/kyc/verifications'],
      ['PATCH', '/api/admin/kyc/verifications/kyc_x', { status: 'verified' }],
      ['GET', '/api/admin/kyc/documents/doc_x'],
    ] as const) {
      const r = await call(ctx, path, { method, cookie: u.cookie, ...(body ? { body } : {}) });
      expect(r.status).toBe(401);
    }
  });

  test("a failed decision gives the consumer's status view its error message; another status clears it", async () => {
    const u = await registerUser(ctx);
    const sub = await call(ctx, '/api/kyc/submit', { method: 'POST', cookie: u.cookie, rawBody: kycForm() });
    expect(sub.status).toBe(201);
    const latest = async () => (await call(ctx, '/api/kyc/status', { cookie: u.cookie })).body.verifications[0];

    token = await adminToken(ctx);
    const failed = await api(`/api/admin/kyc/verifications/${sub.body.id}`, {
      method: 'PATCH',
      body: { status: 'failed', riskScore: 80, adminNotes: 'The photo is blurred.' },
    });
    expect(failed.status).toBe(200);
    expect(failed.body.errorMessage).toBe(KYC_FAILED_MESSAGE);
    expect(await latest()).toMatchObject({
      status: 'failed',
      errorMessage: 'Your documents could not be verified. Please submit a new verification.',
      adminNotes: 'The photo is blurred.',
    });
    // The dialog sends only status, notes and risk score: an errorMessage field is not part of the body.
    const extra = await api(`/api/admin/kyc/verifications/${sub.body.id}`, { method: 'PATCH', body: { status: 'failed', errorMessage: 'x' } });
    expect(extra.status).toBe(400);

    const verified = await api(`/api/admin/kyc/verifications/${sub.body.id}`, { method: 'PATCH', body: { status: 'verified', riskScore: 10 } });
    expect(verified.status).toBe(200);
    expect(await latest()).toMatchObject({ status: 'verified', errorMessage: null });
  });
});
