import type { Preferences } from './preferences'

// Where the docked panel sits and how much of the page it takes. In the entry, not the panel's
// chunk: the page's room is reserved while that chunk loads, so nothing on the page moves when the
// panel appears (a click aimed at the page in that moment would land elsewhere).

export type Dock = 'bottom' | 'right'

export const MIN_SIZE = 180
/** Room the page keeps beside the panel, so its own controls stay usable. */
const PAGE_ROOM: Record<Dock, number> = { bottom: 240, right: 380 }
/** Narrower than this, the panel docks at the bottom whatever was chosen: beside the page it would crush it. */
export const RIGHT_DOCK_MIN_WIDTH = 900

/** The viewport's size; a desktop-sized guess where there is no window (a server render). */
export function room(): { width: number; height: number } {
  return typeof window === 'undefined'
    ? { width: 1280, height: 800 }
    : { width: window.innerWidth, height: window.innerHeight }
}

export function defaultSize(dock: Dock): number {
  return dock === 'bottom' ? Math.min(400, Math.round(room().height * 0.45)) : 620
}

export function clampSize(size: number, dock: Dock): number {
  const space = dock === 'bottom' ? room().height : room().width
  return Math.round(Math.max(Math.min(MIN_SIZE, space / 2), Math.min(size, space - PAGE_ROOM[dock])))
}

/** Where the panel opens: the user's last dock and size, else `position` at its default size; at the bottom when narrow. */
export function openedAt(saved: Preferences, position: Dock): { dock: Dock; size: number } {
  const dock = room().width < RIGHT_DOCK_MIN_WIDTH ? 'bottom' : (saved.dock ?? position)
  return { dock, size: clampSize(saved.size ?? defaultSize(dock), dock) }
}

/**
 * Tells the page the room the devtools take at `dock` (`size` pixels), as `--advisor-devtools-bottom`
 * and `--advisor-devtools-right` on the root element (see the README); returns the undo.
 */
export function reserveDockRoom(dock: Dock, size: number): () => void {
  const style = document.documentElement.style
  style.setProperty('--advisor-devtools-bottom', dock === 'bottom' ? `${size}px` : '0px')
  style.setProperty('--advisor-devtools-right', dock === 'right' ? `${size}px` : '0px')
  return () => {
    style.removeProperty('--advisor-devtools-bottom')
    style.removeProperty('--advisor-devtools-right')
  }
}
