import { useEffect, useState } from 'react'

/** The switches of the advisor chain the demo lets the user flip. */
export interface Settings {
  loopHistory: boolean
  maxRounds: number
  observerInside: boolean
  retry: boolean
  logging: 'off' | 'outside' | 'inside' | 'model'
  /** A message window (ChatMemory) outside or inside the tool loop, or a session compacted to the model's window. */
  memory: 'off' | 'outside' | 'inside' | 'session'
  approval: boolean
  validation: boolean
  /** Each round to the chosen model first, to the scripted remote model when it fails (EscalationAdvisor). */
  localFirst: boolean
}

export const defaultSettings: Settings = {
  loopHistory: true,
  maxRounds: 8,
  observerInside: true,
  retry: true,
  logging: 'off',
  memory: 'outside',
  approval: true,
  validation: true,
  localFirst: false,
}

const KEY = 'advisor-chain-demo-settings'

export function useSettings(): [Settings, (change: Partial<Settings>) => void] {
  const [settings, setSettings] = useState<Settings>(() => {
    try {
      return { ...defaultSettings, ...(JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Settings>) }
    } catch {
      return defaultSettings
    }
  })
  useEffect(() => {
    localStorage.setItem(KEY, JSON.stringify(settings))
  }, [settings])
  return [settings, (change) => setSettings((current) => ({ ...current, ...change }))]
}
