/** Runs `work` over `items` with at most `limit` at a time; rejects with the first failure. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Enough to hide file-system latency without opening hundreds of descriptors at once. */
export const FILE_CONCURRENCY = 16;
