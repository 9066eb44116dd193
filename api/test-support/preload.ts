// Preloaded by `bun test` (bunfig.toml). Tests build their own apps on temporary databases (see app.ts beside this file);
// nothing here may touch ./data.
process.env.TZ = 'UTC';

