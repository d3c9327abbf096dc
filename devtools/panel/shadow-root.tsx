import { useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import { styles } from './styles'

// One constructed stylesheet for every panel on the page.
let sheet: CSSStyleSheet | undefined

function adopt(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet()
      sheet.replaceSync(styles)
    }
    root.adoptedStyleSheets = [sheet]
  } else if (!root.querySelector('style')) {
    const style = document.createElement('style')
    style.textContent = styles
    root.appendChild(style)
  }
}

/**
 * Renders its children into an open shadow root with the panel's own stylesheet: host page CSS
 * does not reach in (inherited properties are reset at the boundary), and the panel's CSS does not
 * leak out. `className` is for the host element (`embedded` fills its container).
 */
export function ShadowRoot({ children, className }: { children: ReactNode; className?: string }) {
  const host = useRef<HTMLDivElement>(null)
  const [container, setContainer] = useState<HTMLElement | null>(null)
  useLayoutEffect(() => {
    const element = host.current
    if (!element) return
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' })
    adopt(root)
    let mount = root.querySelector<HTMLElement>('.mount')
    if (!mount) {
      mount = document.createElement('div')
      mount.className = `mount ${className ?? ''}`
      root.appendChild(mount)
    }
    setContainer(mount)
  }, [className])
  return (
    <div
      ref={host}
      data-advisor-chain-devtools-host=""
      style={className === 'embedded' ? { display: 'block', height: '100%' } : { display: 'contents' }}
    >
      {container && createPortal(children, container)}
    </div>
  )
}
