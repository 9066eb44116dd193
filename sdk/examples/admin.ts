import { BpayAdmin } from '@bpay/sdk';

// Sign in with the admin's username, password and the authenticator app's current code (each code works once).
const admin = await BpayAdmin.login({
  baseUrl: process.env.BPAY_BASE_URL,
  username: process.env.BPAY_ADMIN_USERNAME ?? '',
  password: process.env.BPAY_ADMIN_PASSWORD ?? '',
  code: process.env.BPAY_ADMIN_CODE ?? '',
});
// Keep admin.token (valid 15 minutes) to make a client later: new BpayAdmin(token, { baseUrl }).
console.log((await admin.verify()).admin.username, admin.expiresAt);

// Identity verifications waiting for review.
const pending = await admin.kyc.list({ status: 'pending' });
for (const v of pending) {
  const full = await admin.kyc.retrieve(v.id);
  console.log(full.id, full.user.email, full.documentType, full.documents.length);
  await admin.kyc.review(v.id, { status: 'verified', riskScore: 10, adminNotes: 'Document checked' });
}
console.log(await admin.kyc.dashboard());

// Users, roles and plans.
const tiers = await admin.tiers.list();
const pro = tiers.find((t) => t.name === 'pro');
const [user] = await admin.users.list({ role: 'user' });
if (user && pro) {
  await admin.users.setRole(user.id, 'merchant');
  await admin.users.setTier(user.id, pro.id);
}

await admin.logout(); // revokes the token on the server
