import { isAHoliday } from "@18f/us-federal-holidays";
import { DAY_MS } from "../time/duration.ts";

/** Business days after a counter-notice before a contested DMCA measure may be lifted (17 U.S.C. 512(g)(2)(C)). */
export const RESTORATION_EARLIEST_BUSINESS_DAYS = 10;
/** Business days after a counter-notice by which it must be lifted. */
export const RESTORATION_LATEST_BUSINESS_DAYS = 14;

/** True for a US business day: Monday to Friday and not a US federal holiday (as observed), by its UTC date. */
export function isBusinessDay(day: Date): boolean {
  const weekday = day.getUTCDay();
  return weekday !== 0 && weekday !== 6 && !isAHoliday(day, { utc: true });
}

/** Midnight UTC of `at`'s day. */
function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/**
 * The end (the next midnight, UTC) of the `n`th business day after the day of `from`; the day of
 * `from` itself does not count.
 */
export function endOfNthBusinessDayAfter(from: Date, n: number): Date {
  let day = startOfUtcDay(from);
  let counted = 0;
  while (counted < n) {
    day = new Date(day.getTime() + DAY_MS);
    if (isBusinessDay(day)) counted += 1;
  }
  return new Date(day.getTime() + DAY_MS);
}

/**
 * The restoration window of a DMCA counter-notice received at `filedAt`: from the end of the 10th
 * to the end of the 14th business day after it (UTC days; weekends and US federal holidays do
 * not count). The restoration job lifts the measure as soon as the window opens.
 */
export function restorationWindow(filedAt: Date): { earliestAt: Date; latestAt: Date } {
  return { earliestAt: endOfNthBusinessDayAfter(filedAt, RESTORATION_EARLIEST_BUSINESS_DAYS), latestAt: endOfNthBusinessDayAfter(filedAt, RESTORATION_LATEST_BUSINESS_DAYS) };
}
