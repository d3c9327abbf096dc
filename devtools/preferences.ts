export interface Preferences {
  open?: boolean
  dock?: 'bottom' | 'right'
  size?: number
  theme?: 'light' | 'dark'
}

const KEY = 'advisor-chain-devtools'

export function preferences(): Preferences {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Preferences
  } catch {
    return {}
  }
}

export function savePreferences(change: Preferences): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...preferences(), ...change }))
  } catch {
    // Storage may be full or forbidden; the panel still works.
  }
}
