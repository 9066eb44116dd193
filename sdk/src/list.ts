/*
 * Cursor pagination as Stripe's: a page is `{ data, has_more }` in the API's order (newest first). Iterating a
 * BpayList walks every page, asking for the next one with `starting_after` = the last id of the page it has (or,
 * when the caller started with `ending_before`, towards newer items with `ending_before` = the first id).
 */

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url?: string;
}

export interface CursorParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

export class BpayList<T extends { id: string }, P extends CursorParams = CursorParams> implements AsyncIterable<T> {
  constructor(
    private readonly params: P,
    private readonly fetchPage: (params: P) => Promise<Page<T>>,
  ) {}

  /** The first page only, as the API answers it. */
  firstPage(): Promise<Page<T>> {
    return this.fetchPage(this.params);
  }

  /** Every item across pages, up to `max` (default: all). Mind the memory for large lists. */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const out: T[] = [];
    if (max <= 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    const backwards = this.params.ending_before !== undefined;
    let params = this.params;
    for (;;) {
      const page = await this.fetchPage(params);
      for (const item of page.data) yield item;
      if (!page.has_more || page.data.length === 0) return;
      const cursor = backwards ? page.data[0]!.id : page.data[page.data.length - 1]!.id;
      params = backwards ? { ...params, ending_before: cursor } : { ...params, starting_after: cursor };
    }
  }
}
