import { useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import { styles } from './styles'

/**
 * Renders its children into an open shadow root with the panel's own stylesheet: host page CSS
 * does not reach in, and the panel's CSS does not leak out.
 */
export function ShadowRoot({ children, className }: { children: ReactNode; className?: string }) {
  const host = useRef<HTMLDivElement>(null)
  const [container, setContainer] = useState<HTMLElement | null>(null)
  useLayoutEffect(() => {
    const element = host.current
    if (!element) return
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' })
    if (
      'adoptedStyleSheets' in root &&
      typeof CSSStyleSheet === 'function' &&
      'replaceSync' in CSSStyleSheet.prototype
    ) {
      const sheet = new CSSStyleSheet()
      sheet.replaceSync(styles)
      root.adoptedStyleSheets = [sheet]
    } else if (!root.querySelector('style')) {
      const style = document.createElement('style')
      style.textContent = styles
      root.appendChild(style)
    }
    let mount = root.querySelector<HTMLElement>('[data-advisor-chain-devtools]')
    if (!mount) {
      mount = document.createElement('div')
      mount.setAttribute('data-advisor-chain-devtools', '')
      mount.style.height = '100%'
      root.appendChild(mount)
    }
    setContainer(mount)
  }, [])
  return (
    <div ref={host} className={className} data-advisor-chain-devtools-host="" style={{ display: 'contents' }}>
      {container && createPortal(children, container)}
    </div>
  )
}
