import { describeFaults } from './fault-suite.ts';

describeFaults('redirects');
