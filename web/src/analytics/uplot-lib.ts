// uPlot and its stylesheet, loaded on demand (only the link and analytics pages draw a chart) as a chunk of their own.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export { uPlot };
