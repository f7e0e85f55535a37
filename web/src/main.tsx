// Entry point of the console (chat, admin and sign-in in one page; the
// admin part is a separate chunk loaded on demand).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
