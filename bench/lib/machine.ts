/** The machine a run happened on, recorded with its figures. */
import { cpus, release, totalmem, platform, availableParallelism } from 'node:os';
import type { Machine } from './report.js';

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpuModel: (list[0]?.model ?? 'unknown').trim(),
    cores: typeof availableParallelism === 'function' ? availableParallelism() : list.length,
    totalMemoryMb: Math.round(totalmem() / 1024 / 1024),
    platform: platform(),
    kernel: release(),
    node: process.version,
    v8: process.versions.v8,
  };
}
