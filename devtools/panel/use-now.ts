import { useEffect, useState } from 'react'

/** `performance.now()`, refreshed about ten times a second while `ticking`, so live bars grow between events. */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => performance.now())
  useEffect(() => {
    if (!ticking) return
    const timer = setInterval(() => setNow(performance.now()), 100)
    return () => clearInterval(timer)
  }, [ticking])
  return now
}
