// Vite bundles the stylesheets that modules import.
declare module '*.css' {}
