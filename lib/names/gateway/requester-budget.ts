/**
 * How many new one-time addresses a requester (IP) may be issued per hour, over all names
 * (`ENS_GATEWAY_IP_HOURLY`): a sliding hour of issue times per IP, in process memory (one
 * instance's view; several instances each keep their own). Bounded: at most
 * {@link MAX_TRACKED} requesters are tracked, the oldest forgotten first.
 */
import { processSingleton } from '../../server/singleton.ts';

const HOUR = 3_600;
const MAX_TRACKED = 100_000;

export type RequesterBudget = {
  /** True when `ip` may be issued a new address at `now` (Unix seconds). */
  available(ip: string, now: number): boolean;
  /** Count one new address for `ip`. */
  take(ip: string, now: number): void;
};

/** The process's budget (created with the first limit asked for). */
export function requesterBudget(perHour: number): RequesterBudget {
  return processSingleton('ensGatewayRequesterBudget', () => createRequesterBudget(perHour));
}

export function createRequesterBudget(perHour: number): RequesterBudget {
  const issued = new Map<string, number[]>();
  const recent = (ip: string, now: number) => (issued.get(ip) ?? []).filter((at) => at > now - HOUR);
  return {
    available: (ip, now) => recent(ip, now).length < perHour,
    take(ip, now) {
      const times = recent(ip, now);
      times.push(now);
      issued.delete(ip);
      issued.set(ip, times);
      if (issued.size > MAX_TRACKED) issued.delete(issued.keys().next().value!);
    },
  };
}
