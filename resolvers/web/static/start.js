// Starts GraphiQL against this server's /graphql. With auth on, put the key in the Headers
// tab: {"Authorization": "Bearer bgk_..."}. Queries and mutations go over HTTP; subscriptions
// over a WebSocket (graphql-transport-ws) whose connection_init carries the Headers tab, as
// the server expects its key there. Headers are not kept in the browser's storage: a key
// typed here is gone when the tab closes.
(function () {
  var endpoint = window.location.origin + "/graphql";
  var overHttp = GraphiQL.createFetcher({ url: endpoint });

  // The operation the request runs is a subscription: the one named by operationName, else
  // the document's first operation (a document of several must name one; the server says so).
  function isSubscription(params) {
    var text = (params.query || "").replace(/#[^\n]*/g, "");
    var name = params.operationName;
    if (name) return new RegExp("\\bsubscription\\s+" + name + "\\b").test(text);
    var first = text.match(/^\s*(query|mutation|subscription|\{)/m);
    return first !== null && first[1] === "subscription";
  }

  // Every value GraphiQL stores, with no `headers` anywhere in it. Its history and favourites
  // keep each run's headers whatever shouldPersistHeaders says, and the Headers tab holds the
  // key; with this, only the operations and their variables are kept.
  function withoutHeaders(value) {
    var data;
    try {
      data = JSON.parse(value);
    } catch (notJson) {
      return value;
    }
    (function strip(node) {
      if (node === null || typeof node !== "object") return;
      if (!Array.isArray(node)) delete node.headers;
      Object.keys(node).forEach(function (key) {
        strip(node[key]);
      });
    })(data);
    return JSON.stringify(data);
  }
  var local = window.localStorage;
  var storage = new Proxy(local, {
    get: function (target, property) {
      if (property === "setItem") {
        return function (key, value) {
          target.setItem(key, withoutHeaders(String(value)));
        };
      }
      var value = target[property];
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  // What an earlier page kept before this existed is cleaned once.
  for (var i = 0; i < local.length; i++) {
    var key = local.key(i);
    if (key && key.indexOf("graphiql:") === 0) local.setItem(key, withoutHeaders(local.getItem(key)));
  }

  // One subscription on its own socket, as an async iterable of results for GraphiQL.
  function overSocket(params, headers) {
    var results = [];
    var waiting = [];
    var finished = false;
    var socket = new WebSocket(endpoint.replace(/^http/, "ws"), "graphql-transport-ws");

    function push(result) {
      if (finished) return;
      if (result.done) finished = true;
      if (waiting.length) waiting.shift()(result);
      else results.push(result);
    }
    function fail(message) {
      push({ value: { errors: [{ message: message }] }, done: false });
      push({ value: undefined, done: true });
    }
    socket.onopen = function () {
      socket.send(JSON.stringify({ type: "connection_init", payload: headers || {} }));
    };
    socket.onmessage = function (event) {
      var message = JSON.parse(event.data);
      if (message.type === "connection_ack") {
        var payload = {
          query: params.query,
          variables: params.variables || {},
          operationName: params.operationName || null,
        };
        socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: payload }));
      } else if (message.type === "ping") {
        socket.send(JSON.stringify({ type: "pong" }));
      } else if (message.type === "next") {
        push({ value: message.payload, done: false });
      } else if (message.type === "error") {
        push({ value: { errors: message.payload }, done: false });
        push({ value: undefined, done: true });
      } else if (message.type === "complete") {
        push({ value: undefined, done: true });
      }
    };
    socket.onerror = function () {
      fail("the subscription's WebSocket failed");
    };
    socket.onclose = function (event) {
      if (event.code === 1000) push({ value: undefined, done: true });
      else fail("the server closed the subscription (" + event.code + " " + event.reason + ")");
    };

    var iterator = {
      next: function () {
        if (results.length) return Promise.resolve(results.shift());
        if (finished) return Promise.resolve({ value: undefined, done: true });
        return new Promise(function (resolve) {
          waiting.push(resolve);
        });
      },
      return: function () {
        finished = true;
        socket.close(1000);
        return Promise.resolve({ value: undefined, done: true });
      },
    };
    iterator[Symbol.asyncIterator] = function () {
      return iterator;
    };
    return iterator;
  }

  // Routed by the text it runs. GraphiQL's parsed document (`documentAST`) can lag behind the
  // editor: a query typed over a subscription and run at once still carried the
  // subscription's, and GraphiQL's own fetcher refused it for want of a socket.
  function fetcher(params, options) {
    if (isSubscription(params)) return overSocket(params, options && options.headers);
    var http = Object.assign({}, options);
    delete http.documentAST;
    return overHttp(params, http);
  }

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
      shouldPersistHeaders: false,
      storage: storage,
    })
  );
})();
