/* The shared split configurator (issue 12): pure rules, the sample sources and the component. */
export * from './split-rules';
export * from './sample-sources';
export * from './split-configurator';
