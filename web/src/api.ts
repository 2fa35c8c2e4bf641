/**
 * The page's side of the hub's REST API. The human is signed in by the
 * HttpOnly cookie that POST /api/v1/login sets, so requests carry no token;
 * errors come back in the hub's one shape, `{error: {code, message, field}}`.
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/v1${route}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError('UNREACHABLE', 'The hub did not answer; it may be restarting.', 0);
  }
  // A body that is not JSON (a proxy's error page, an empty answer) leaves the status alone to go by.
  const payload = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string; field?: string } };
  if (!response.ok) {
    throw new ApiError(payload.error?.code ?? 'INTERNAL', payload.error?.message ?? `The hub answered ${response.status}.`, response.status, payload.error?.field);
  }
  return payload as T;
}

/** Path segments are ids, channel names or meeting names: always encoded. */
export const seg = encodeURIComponent;

/** A message for the person, from whatever was thrown. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
