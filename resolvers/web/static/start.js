// Starts GraphiQL against this server's /graphql. With auth on, put the key in the Headers
// tab: {"Authorization": "Bearer bgk_..."}.
(function () {
  var fetcher = GraphiQL.createFetcher({ url: window.location.origin + "/graphql" });
  var example = [
    "# Try a query, then press the run button (or Ctrl-Enter).",
    "query {",
    "  health { ok neo4j version }",
    "}",
    "",
  ].join("\n");
  var root = ReactDOM.createRoot(document.getElementById("graphiql"));
  root.render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: example,
      shouldPersistHeaders: true,
    })
  );
})();
