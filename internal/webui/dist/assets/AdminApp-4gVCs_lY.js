import{a as e,i as t,n,r,t as i}from"./index-DWciCHaP.js";var a=n(),o=t(`
  query AdminProbe {
    viewer {
      userId
      isAdmin
    }
    feedbacks(first: 1) {
      totalCount
    }
  }
`);function s(){let{data:t,error:n,loading:s}=e(o);return s?(0,a.jsx)(`p`,{className:`muted`,children:`…`}):n?(0,a.jsx)(i,{error:r(n)}):(0,a.jsxs)(`main`,{className:`admin`,children:[(0,a.jsx)(`h2`,{children:`Admin`}),(0,a.jsxs)(`p`,{children:[t?.viewer.userId,` · feedback: `,t?.feedbacks.totalCount]})]})}export{s as default};