/* object_list.h - the doubly linked lists in which a device backend keeps
 * every buffer and kernel it handed out, so close() can free what callers
 * still hold. A node type needs `prev` and `next` pointers to itself. */
#ifndef FB_OBJECT_LIST_H
#define FB_OBJECT_LIST_H

#define LIST_PUSH(head, node)                                                                                          \
    do {                                                                                                               \
        (node)->prev = NULL;                                                                                           \
        (node)->next = (head);                                                                                         \
        if (head) (head)->prev = (node);                                                                               \
        (head) = (node);                                                                                               \
    } while (0)

#define LIST_UNLINK(head, node)                                                                                        \
    do {                                                                                                               \
        if ((node)->prev)                                                                                              \
            (node)->prev->next = (node)->next;                                                                         \
        else                                                                                                           \
            (head) = (node)->next;                                                                                     \
        if ((node)->next) (node)->next->prev = (node)->prev;                                                           \
    } while (0)

#endif
