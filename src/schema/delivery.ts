import { z } from 'zod';

/**
 * Per-recipient delivery states of a targeted event, in the order they move:
 * pending → delivered (returned by a consuming read) → injected (put into the
 * agent's context by a hook or the LLM middleware) → acknowledged (acked or
 * answered). Defined here so both input schemas and the store can use them.
 */
export const DELIVERY_STATES = ['pending', 'delivered', 'injected', 'acknowledged'] as const;
export const DeliveryStateSchema = z.enum(DELIVERY_STATES);
export type DeliveryState = z.output<typeof DeliveryStateSchema>;

/**
 * What its sender sees of a delivery: its state, or `expired` for a DM or
 * request to a participant of another hub that this hub could not hand to
 * that hub within its TTL (src/hub/delivery-view.ts). Never stored: the
 * recipient's hub never had it.
 */
export type SentDeliveryState = DeliveryState | 'expired';
