import { useEffect, useState } from 'react'
import { preferences, savePreferences } from '../preferences'

type Theme = 'light' | 'dark'

const query = () => globalThis.matchMedia?.('(prefers-color-scheme: dark)')

/** The panel's theme: the user's choice once made (remembered), else the system's, followed live. */
export function useTheme(): [Theme, () => void] {
  const [chosen, setChosen] = useState(() => preferences().theme)
  const [system, setSystem] = useState<Theme>(() => (query()?.matches ? 'dark' : 'light'))
  useEffect(() => {
    const media = query()
    if (!media) return
    const follow = () => setSystem(media.matches ? 'dark' : 'light')
    media.addEventListener('change', follow)
    return () => media.removeEventListener('change', follow)
  }, [])
  const theme = chosen ?? system
  const toggle = () => {
    const next = theme === 'dark' ? 'light' : 'dark'
    setChosen(next)
    savePreferences({ theme: next })
  }
  return [theme, toggle]
}
