/**
 * Shard lists as operators write them (`SHARD_IDS=0-3`, `0,2,5`, `0-3,8-11`) and back. A guild's
 * shard is `(guild_id >> 22) % shard_count`, as Discord computes it.
 */

/** Never more shards than this in one list: a typo like `0-99999999` must not allocate for minutes. */
const MAX_SHARD_ID = 65_535;

/** The ids of a list, sorted and without repeats; throws an Error saying what is wrong. */
export function parseShardIds(text: string): number[] {
  const ids = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const match = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(part);
    if (!match) throw new Error(`"${part.slice(0, 20)}" is not a shard id or a range like 0-3`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) throw new Error(`the range ${from}-${to} goes backwards`);
    if (to > MAX_SHARD_ID) throw new Error(`shard ids stop at ${MAX_SHARD_ID}`);
    for (let id = from; id <= to; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** `[0,1,2,3,8]` → `0-3,8`: the compact form for log lines and metric labels. */
export function formatShardIds(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The shard of a guild among `count` shards. */
export function shardOfGuild(guildId: string, count: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(count));
}

/**
 * The order shards identify in under Discord's max_concurrency rule: shards whose
 * `id % maxConcurrency` differ may identify at once; one per bucket per 5 seconds. Wave k holds
 * the k-th shard of every bucket.
 */
export function identifyWaves(ids: readonly number[], maxConcurrency: number): number[][] {
  const perBucket = new Map<number, number[]>();
  for (const id of [...ids].sort((a, b) => a - b)) {
    const bucket = id % maxConcurrency;
    perBucket.set(bucket, [...(perBucket.get(bucket) ?? []), id]);
  }
  const waves: number[][] = [];
  for (const list of perBucket.values()) list.forEach((id, k) => (waves[k] ??= []).push(id));
  return waves.map((wave) => wave.sort((a, b) => a - b));
}
