import type { ModelMessage } from 'ai';

/**
 * The loop's own history — what each turn was given and what the model did —
 * kept turn by turn, so that it can be cut short without breaking a turn: a
 * long-running loop drops its oldest whole turns (each from the message that
 * started it, its tool calls always with their results) before it would
 * outgrow the model's context.
 */
export class TurnHistory {
  readonly #messages: ModelMessage[] = [];
  /** Where each turn kept here starts in #messages. */
  readonly #starts: number[] = [];

  get messages(): readonly ModelMessage[] {
    return this.#messages;
  }

  /** One successful model call: `startsTurn` for the first call of a turn. */
  add(messages: readonly ModelMessage[], startsTurn: boolean): void {
    if (startsTurn) this.#starts.push(this.#messages.length);
    this.#messages.push(...messages);
  }

  /** Drops the oldest whole turns until at most `max` messages remain (or none are left); returns how many turns went. */
  trim(max: number): number {
    let dropped = 0;
    while (this.#messages.length > max && this.#starts.length > 0) {
      const next = this.#starts[1] ?? this.#messages.length;
      this.#messages.splice(0, next);
      this.#starts.shift();
      for (let i = 0; i < this.#starts.length; i++) this.#starts[i] = (this.#starts[i] ?? 0) - next;
      dropped++;
    }
    return dropped;
  }
}
