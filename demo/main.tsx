import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import './demo.css'

document.documentElement.dataset['theme'] =
  localStorage.getItem('advisor-chain-demo-theme') ??
  (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light')

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
