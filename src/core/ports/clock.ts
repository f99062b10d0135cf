/** Port: the time source of the core (tests and the local runtime pass their own). */
export interface Clock {
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };
