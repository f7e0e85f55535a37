// The GraphQL operation of the search box (docs/API.md, "Conversation
// search"); graphql-codegen types it into src/gql.
import { graphql } from '../gql';

export const SearchConversationsQuery = graphql(`
  query SearchConversations($query: String!, $first: Int) {
    searchConversations(query: $query, first: $first) {
      edges {
        cursor
        node {
          conversation {
            id
            title
          }
          message {
            id
          }
          matchKind
          snippet {
            text
            highlights {
              start
              end
            }
          }
          score
        }
      }
    }
  }
`);
