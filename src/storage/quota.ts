/** Whether IndexedDB refused a write because the site's storage is full. */
export const isQuotaExceeded = (error: unknown): boolean =>
  error instanceof DOMException && error.name === 'QuotaExceededError'
