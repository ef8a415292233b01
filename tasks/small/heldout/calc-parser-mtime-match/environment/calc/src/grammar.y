%{
#include <stdio.h>
int yylex(void);
void yyerror(const char *s) { fprintf(stderr, "calc: %s\n", s); }
%}
%token NUM
%left '+' '-'
%left '*' '/'
%%
input: /* empty */ | input line ;
line: '\n' | expr '\n' { printf("%d\n", $1); } ;
expr: NUM | expr '+' expr { $$ = $1 + $3; } | expr '-' expr { $$ = $1 - $3; }
    | expr '*' expr { $$ = $1 * $3; } | expr '/' expr { $$ = $1 / $3; } ;
%%
