/**
 * Work the page starts and does not wait for (a refresh after a live event, a
 * presence update): its failure is said on the console with what failed,
 * never dropped silently and never an unhandled rejection.
 */

export function inBackground(work: Promise<unknown>, what: string): void {
  work.catch((error: unknown) => console.warn(`parley: ${what} failed:`, error instanceof Error ? error.message : error));
}
