// Preloaded by `bun test` (bunfig.toml). Tests build their own apps on temporary databases (see testing.ts);
// nothing here may touch ./data.
process.env.TZ = 'UTC';

import { setDefaultTimeout } from 'bun:test';
// A hang guard, not a speed target: sign-in tests run dozens of argon2id checks (19 MiB each) on two shared cores,
// and Bun's default 5 s cut one off on a loaded CI machine. Speed is measured in bench/, never here.
setDefaultTimeout(20_000);
