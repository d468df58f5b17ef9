import { render } from 'preact';
import { App } from './App.tsx';
import './styles/base.css';
import './styles/links.css';
import './styles/link.css';
import './styles/admin.css';
import './styles/analytics.css';
import './styles/webhooks.css';
import './styles/people.css';
import './styles/tables.css';

const root = document.getElementById('app');
if (root === null) throw new Error('index.html has no #app element');
render(<App />, root);
