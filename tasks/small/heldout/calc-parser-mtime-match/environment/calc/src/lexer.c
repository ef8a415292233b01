#include <ctype.h>
#include <stdio.h>
int yylval;
int yylex(void) {
    int c = getchar();
    while (c == ' ') c = getchar();
    if (isdigit(c)) { ungetc(c, stdin); scanf("%d", &yylval); return 258; }
    return c == EOF ? 0 : c;
}
