/*
 * The web's unit tests of API calls replace the global fetch (the typed client looks it up at each call) with one
 * that records each Request and answers what the test says. Each test file calls `afterEach(restoreFetch)` itself:
 * a hook registered in an imported module would only reach the first test file that imports it.
 */
const realFetch = globalThis.fetch;

export function restoreFetch(): void {
  globalThis.fetch = realFetch;
}

/** Replaces fetch with one that records each Request and answers `answer`. */
export function answering(answer: () => Response): Request[] {
  const seen: Request[] = [];
  globalThis.fetch = (async (input: RequestInfo | URL) => {
    seen.push(input as Request);
    return answer();
  }) as typeof fetch;
  return seen;
}
