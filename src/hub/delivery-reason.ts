/** Why an event reaches a participant it targets (a High inbox item). */
export type DeliveryReason = 'request' | 'response' | 'dm' | 'direct' | 'mention' | 'prod' | 'invite' | 'control';

/** Which reason wins when an event targets one participant for several: the lowest rank. */
export const REASON_RANK: Record<DeliveryReason, number> = {
  request: 0,
  response: 1,
  dm: 2,
  direct: 3,
  mention: 4,
  prod: 5,
  invite: 6,
  control: 7,
};

/** Who an event reaches, each with the one reason it is theirs for. */
export type Reach = ReadonlyMap<string, DeliveryReason>;
