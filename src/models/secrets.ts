import { registerSecret } from '../core'

/** What a remote model was given that must never show up again: its key, header values, URL credentials. */
export function registerModelSecrets(options: {
  apiKey?: string | undefined
  headers?: Record<string, string> | undefined
  baseURL?: string | undefined
}): void {
  registerSecret(options.apiKey)
  for (const value of Object.values(options.headers ?? {})) {
    registerSecret(value)
    // `Bearer <token>` and `Basic <credentials>`: the token alone may be echoed too.
    const token = /^\S+\s+(\S+)$/.exec(typeof value === 'string' ? value.trim() : '')?.[1]
    registerSecret(token)
  }
  const credentials = urlCredentials(options.baseURL)
  if (credentials) {
    for (const [username, password] of [credentials, credentials.map(decode)]) {
      registerSecret(`${username}:${password}`)
      // A lone user name is the credential when there is no password (`https://TOKEN@host`).
      registerSecret(password || username)
    }
  }
}

/** The URL as it may be shown in a message: without `user:password@`. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url)
    if (!parsed.username && !parsed.password) return url
    parsed.username = ''
    parsed.password = ''
    return parsed.href
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, '//')
  }
}

function urlCredentials(baseURL: string | undefined): [string, string] | undefined {
  if (!baseURL) return undefined
  try {
    const { username, password } = new URL(baseURL)
    return username || password ? [username, password] : undefined
  } catch {
    return undefined
  }
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}
