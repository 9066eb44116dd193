/*
 * A bench-only preload (bench/http.ts): `bun --preload bench/reuse-port.ts api/src/server.ts` starts the real server
 * with `reusePort: true` added to its Bun.serve options, so several processes listen on one port and the kernel
 * shares the connections among them (SO_REUSEPORT), without an option in the app for a design not kept (docs/SCALING.md,
 * "Issue 29: the second core"). Once listening it says so on stderr, so the bench knows each process is up even when
 * another one on the same port already answers.
 */
const serve = Bun.serve;
const withReusePort = ((options: Parameters<typeof Bun.serve>[0]) => {
  const server = serve.call(Bun, { ...options, reusePort: true } as Parameters<typeof Bun.serve>[0]);
  console.error(`[bench] listening with reusePort on ${server.port} (pid ${process.pid})`);
  return server;
}) as typeof Bun.serve;
Object.assign(Bun, { serve: withReusePort });
