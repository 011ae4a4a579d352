/**
 * The manager's questions to its shard processes, over the IPC channel discord.js's
 * ShardingManager opens (child_process.fork): "are you ready?" and "your metrics?". Shard
 * processes open no port of their own; the manager serves one ops listener for the host.
 *
 * Messages carry `feedbotOps: 1` so discord.js's own IPC messages (`_eval`, `_ready`…) and ours
 * never mix. Both ends validate what they receive.
 */
import { z } from 'zod';
import type { Readiness } from '../ops/readiness.js';

const QUESTIONS = ['readiness', 'metrics'] as const;
type OpsQuestion = (typeof QUESTIONS)[number];

const QuestionSchema = z.object({ feedbotOps: z.literal(1), id: z.number().int(), ask: z.enum(QUESTIONS) });
const AnswerSchema = z.object({ feedbotOps: z.literal(1), id: z.number().int(), value: z.unknown().optional(), error: z.string().optional() });

export const ReadinessSchema = z.object({
  ready: z.boolean(),
  shards: z.record(z.string(), z.string()),
  keyStore: z.string(),
  problems: z.array(z.string()),
});

/** One metric as prom-client's `getMetricsAsJSON()` writes it; the aggregator reads the rest. */
export const MetricJsonSchema = z.looseObject({
  name: z.string(),
  help: z.string(),
  type: z.string(),
  values: z.array(z.looseObject({ value: z.number(), labels: z.record(z.string(), z.union([z.string(), z.number()])) })),
});

interface OpsAnswers {
  readiness(): Promise<Readiness>;
  metrics(): Promise<unknown[]>;
}

/** In a shard process: answers the manager's questions; returns the unsubscribe. */
export function answerManager(answers: OpsAnswers, channel: NodeJS.Process = process): () => void {
  const listener = (message: unknown) => {
    const question = QuestionSchema.safeParse(message);
    if (!question.success || !channel.send) return;
    const { id, ask } = question.data;
    const reply = (body: { value?: unknown; error?: string }) => {
      if (channel.connected) channel.send?.({ feedbotOps: 1, id, ...body });
    };
    (ask === 'readiness' ? answers.readiness() : answers.metrics()).then(
      (value) => reply({ value }),
      (error: unknown) => reply({ error: error instanceof Error ? error.name : 'error' }),
    );
  };
  channel.on('message', listener);
  return () => void channel.off('message', listener);
}

/** The manager's end of one shard process (a discord.js Shard has this shape). */
export interface ShardChannel {
  send(message: unknown): Promise<unknown>;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

let nextId = 1;

/** Asks one shard process; rejects when it does not answer within `timeoutMs`. */
export function askShard(shard: ShardChannel, ask: OpsQuestion, timeoutMs: number): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
    const listener = (message: unknown) => {
      const answer = AnswerSchema.safeParse(message);
      if (!answer.success || answer.data.id !== id) return;
      const { value, error } = answer.data;
      finish(() => (error === undefined ? resolve(value) : reject(new Error(`the shard process failed to answer (${error})`))));
    };
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      shard.off('message', listener);
      settle();
    };
    shard.on('message', listener);
    shard.send({ feedbotOps: 1, id, ask }).catch((error: unknown) => finish(() => reject(error instanceof Error ? error : new Error(String(error)))));
  });
}
