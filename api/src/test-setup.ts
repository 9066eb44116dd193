// Preloaded by `bun test` (bunfig.toml). Tests build their own apps on temporary databases (see testing.ts);
// nothing here may touch ./data.
process.env.TZ = 'UTC';

