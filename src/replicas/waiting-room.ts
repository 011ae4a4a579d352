/**
 * Where a replica's requests wait while a key's first answer is out (the gate's unknown state),
 * when that answer may land on another replica. A release or forget on this replica wakes every
 * waiter of the key at once. Otherwise one waiter per key (the scout) is let out every `pollMs`
 * to ask Redis again; when its answer is no longer "wait", the gate wakes the others. So a
 * replica polls one script per key per tick, however many commands wait.
 *
 * The wait is bounded as in one process: the unit the first answer holds is released within one
 * attempt's time-out, or its reservation expires then (its replica died) and the scout is admitted.
 */
/** Why a wait ended: a release or forget here woke everyone, or this waiter is the tick's scout. */
type WakeReason = 'wake' | 'tick';

interface Room {
  waiters: Array<(reason: WakeReason) => void>;
  timer: NodeJS.Timeout;
}

export class WaitingRoom {
  private readonly rooms = new Map<string, Room>();

  constructor(private readonly pollMs: number) {}

  /** Resolves when this key's waiters are woken, or at the next tick if this one is the scout. */
  wait(key: string): Promise<WakeReason> {
    return new Promise((resolve) => {
      let room = this.rooms.get(key);
      if (!room) {
        const timer = setInterval(() => this.tick(key), this.pollMs).unref();
        room = { waiters: [], timer };
        this.rooms.set(key, room);
      }
      room.waiters.push(resolve);
    });
  }

  wakeAll(key: string): void {
    const room = this.rooms.get(key);
    if (!room) return;
    this.close(key, room);
    for (const wake of room.waiters) wake('wake');
  }

  /** Keys with someone waiting. */
  get size(): number {
    return this.rooms.size;
  }

  private tick(key: string): void {
    const room = this.rooms.get(key);
    const scout = room?.waiters.shift();
    if (room && room.waiters.length === 0) this.close(key, room);
    scout?.('tick');
  }

  private close(key: string, room: Room): void {
    clearInterval(room.timer);
    this.rooms.delete(key);
  }
}
