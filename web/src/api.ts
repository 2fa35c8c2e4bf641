/**
 * The page's side of the hub's REST API. The human is signed in by the
 * HttpOnly cookie that POST /api/v1/login sets, so requests carry no token;
 * errors come back in the hub's one shape, `{error: {code, message}}`.
 */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`/api/v1${route}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok) throw new ApiError(payload.error?.code ?? 'INTERNAL', payload.error?.message ?? `The hub answered ${response.status}.`, response.status);
  return payload as T;
}

export interface Me {
  participant: { id: string; handle: string; profile: { kind: string } };
  session: { id: string; name: string };
}
